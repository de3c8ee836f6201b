// roster.hpp — `roster.yaml`: the members of a formation and who may call whom.
//
// Invariant: a Roster value has the right shape (check 1 of admission, E-ROS-001) and nothing
// more: names, capsules and versions spelled correctly, exactly the known keys, `entry` a real
// boolean, each rule's `to` a non-empty list without `from`. Uniqueness, the single entry and
// rule membership are admission's checks 2–5, so they are not refused here.
// Parse order (docs/spec/formation.md §Parse order): YAML syntax → top level is a mapping → unknown
// top-level keys → roster_version → hosts (per host: name, unknown keys, address, key) → members (present, list, non-empty; per member: unknown
// keys, name, path (with capsule, version or host: E-ROS-012) or else capsule, version, entry, host,
// restart: unknown keys, max, within_secs) → reachability (per rule: unknown keys, from, to,
// `to` contains `from`) → allow_cycles → limits (unknown keys, max_depth, max_live, then the
// spending limits of capsule/limits_section.hpp).
// Rule: the project's roster.yaml lists the members (capsule, exact version, one entry) and who
// may call whom (docs/spec/formation.md §Roster).
#pragma once

#include "messages/vocabulary/call_chain.hpp"
#include "messages/vocabulary/restart_budget.hpp"
#include "messages/vocabulary/task_budget.hpp"
#include "messages/wire/live_slot.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mur {

struct RosterMember {
  std::string name;
  std::string capsule;     // with `path`: "" until admission installed the folder (then its name)
  std::string version;     // with `path`: likewise
  std::string path;        // `path:` a capsule folder for development, as written (relative: to the project)
  bool entry = false;
  std::string host; // a name under `hosts:` ("" = the launcher's machine)
  RestartPolicy restart; // `restart: {max, within_secs}`; none ⇒ max 0 (its death ends the formation)
};

// Another machine's host agent (`mur host`): where it listens and the certificate it must
// present (pinned). docs/hosts.md.
struct RosterHost {
  std::string name;
  std::string address; // HOST:PORT
  std::string host, port_text;
  int port = 0;
  std::string key;     // its certificate's file, as the roster wrote it (relative: to the project)
};

struct ReachabilityRule {
  std::string from;
  std::vector<std::string> to;
};

struct Roster {
  std::string project_dir; // the formation's project directory
  std::string file;        // path of roster.yaml as shown to the user
  std::vector<RosterMember> members;
  bool reach_all = false;  // `reachability: all`
  std::vector<ReachabilityRule> rules;
  ChainRule chain_rule;    // `allow_cycles` (a boolean) and `limits.max_depth` (1–64, default 8)
  int max_live = default_max_live; // `limits.max_live` (1–4096): live members and delegated children at once
  SpendLimits spend;       // `limits` max_tokens, …, max_wall_secs: what each task the formation is given may spend
  std::vector<RosterHost> hosts; // `hosts:`, in file order
};

// Where a `--roster` / `mur doctor` argument points: an existing directory (its roster.yaml),
// or a path ending in roster.yaml (its parent). Anything else is E-ROS-001.
struct RosterLocation {
  std::string project_dir;
  std::string file;
};
RosterLocation locate_roster(const std::string& arg);

// HOST:PORT — a host's address, or what `mur host --listen` takes: HOST not empty (a bracketed
// IPv6 address is given back without its brackets), PORT 1–65535 in decimal. nullopt otherwise.
struct HostPort {
  std::string host, port_text;
  int port = 0;
};
std::optional<HostPort> split_host_port(const std::string& text);

Roster parse_roster(const std::string& text, const std::string& label);
Roster load_roster(const RosterLocation& where);

} // namespace mur
