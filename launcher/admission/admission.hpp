// admission.hpp — takes a whole roster or refuses it with one code: the first failure in the
// order of docs/spec/formation.md §Admission order.
//
//   1 shape (E-ROS-001, done by parse_roster) → 2 unique names (E-ROS-003) → 3 exactly one
//   entry (E-ROS-002) → 4 every rule names members (E-ROS-004) → 5 no rule calls the entry
//   member (E-ROS-008) → 6 every member resolves at its exact version, bytes matching the
//   recorded sha256 (E-ROS-007; a member named by `path` is installed from its folder first,
//   launcher/admission/path_members.hpp) → 7 every callee of an explicit rule accepts peer tasks
//   (E-ROS-005) → 8 with any edge, every member has an authenticated door (E-ROS-006) → 9 every
//   `capabilities.spawn.allow` entry of every member resolves like a member (E-ROS-009) → 10 no
//   spawn.allow capsule name is the name of a member that member may call (E-ROS-010) → 11 the
//   members are no more than limits.max_live (E-ROS-011) → 12 every member's `host` is one the
//   roster declares (E-HST-001), and every host's key file holds a certificate (E-HST-008).
// Warnings (no refusal): W-ROS-001 a callee with more callers than tasks it holds at once,
// W-RUN-008 a caller whose egress lacks localhost, W-ROS-002 a script calling outside its
// edges, W-ROS-003 a callee whose lifecycle.after_task is exit (it ends after one task),
// W-ROS-006 a member that may delegate under a limits.max_live the members already fill,
// W-ROS-007 an installed capsule that differs from a source folder the project holds for it.
// Checks 1–5 read no store. Within a check, members go in roster order. There is no lock
// file here, so E-REG-005 does not exist.
//
// Invariant: an Admission is the complete, ordered edge set (sorted by roster index of
// `from`, then of `to`) with every member bound to one stored capsule and its sha256 —
// the launcher issues one credential per edge and nothing else.
// Rule: a call needs the roster's edge, the callee's consent and the caller's egress; a rule
// naming the entry member in `to` is E-ROS-008 (docs/spec/formation.md §Who may call whom).
#pragma once

#include "capsule/capsule_store.hpp"
#include "capsule/manifest.hpp"
#include "launcher/admission/path_members.hpp"
#include "launcher/admission/roster.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mur {

struct AdmittedMember {
  RosterMember declared;
  ResolvedCapsule capsule;           // manifest + stored copy + sha256 it is bound to
  std::vector<std::string> callees;  // roster order
  std::vector<std::string> callers;  // roster order
  std::vector<ResolvedCapsule> spawnable; // capabilities.spawn.allow, resolved, in its order
};

struct Edge {
  std::string from;
  std::string to;
  bool operator==(const Edge& o) const { return from == o.from && to == o.to; }
};

struct Warning {
  std::string code;    // e.g. W-ROS-001
  std::string message;
  std::string fix;
};

struct Admission {
  Roster roster;
  std::vector<AdmittedMember> members; // roster order
  std::size_t entry = 0;               // index into members
  std::vector<Edge> edges;             // sorted by roster index of from, then to
  std::vector<Warning> warnings;
  std::vector<PathInstall> installed;  // members named by path, installed from their folders (roster order)

  const AdmittedMember& entry_member() const { return members[entry]; }
};

// Check 9 for one capsule: each capabilities.spawn.allow entry resolved from `stores` (project
// store, then global; sha256 checked), in order. Throws E-ROS-009 naming `who` (e.g.
// "roster.yaml: member 'lead' (lead-c@1.0.0)") and the entry. `mur doctor` on a capsule folder
// uses it too.
std::vector<ResolvedCapsule> resolve_spawn_allow(const Manifest& m, const StoreRoots& stores,
                                                 const std::string& who);


// Runs checks 2–12 on a parsed roster; throws Failure with the first refusal's code. Writes to
// the project store only to install members named by path whose folders changed.
Admission admit(const Roster& roster, const StoreRoots& stores);

// Where a host's key file is: as written when absolute, else in the project directory.
std::string host_key_path(const Roster& roster, const RosterHost& h);

// Checks 1–10: locate, parse and admit.
Admission admit_roster_at(const std::string& roster_arg);

} // namespace mur
