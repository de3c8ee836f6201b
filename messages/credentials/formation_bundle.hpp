// formation_bundle.hpp — one member's credentials: its formation channel's first line.
//
// Invariant: rendered with its fields in the fixed order formation_id, member, launcher
// (optional), verify_key, calls, chain (optional: the roster's cycle rule and depth, 1–64),
// limits (optional: the roster's spending limits, each in its range, at least one), tls
// (optional: authority, and certificate with key or neither, each a PEM block of its kind). A parsed bundle is one in which every call's token verifies
// under the bundle's own key as (this formation, this member → that callee), callee names are
// member names listed once, and the line is at most 1 MiB of UTF-8. Tokens stay FormationToken
// values; a refusal states a reason and never quotes the line or a token.
// Rule: a member's bundle is the first line of its own channel, a pipe no other member inherits
// (docs/spec/door.md §The formation channel).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/credentials/formation_token.hpp"
#include "messages/vocabulary/call_chain.hpp"
#include "messages/vocabulary/task_budget.hpp"

namespace mur {

// Which launcher started the member (for `mur stop`): pid 1..2^31-1, a non-empty start stamp.
struct LauncherIdentity {
  std::int64_t pid = 0;
  std::string process_start;
};

// A formation with members on other hosts: the authority its doors' certificates come from
// (PEM, public; every member's egress trusts it and nothing else for https doors), and for a
// member on another host its own door's certificate and key (PEM; the key is secret, as the
// tokens are). All "" in a formation on one machine.
struct DoorTls {
  std::string authority;
  std::string certificate;
  std::string key;
};

struct FormationCall {
  std::string name;     // the callee
  FormationToken token; // for this member → name
};

struct FormationBundle {
  std::string formation_id;
  std::string member;
  std::optional<LauncherIdentity> launcher;
  FormationVerifyKey verify_key{};
  std::vector<FormationCall> calls; // roster order
  ChainRule chain_rule;             // `chain` {allow_cycles, max_depth}: rendered only when not the default
  SpendLimits limits;               // `limits` {max_tokens, …, max_wall_secs}: the roster's, for each task no
                                    // member sent; rendered only when one bounds something
  DoorTls tls;                      // `tls` {authority, certificate?, key?}: rendered only with an authority
};

// The line, without its `\n`. (This and `expose()` are the only places token text is written.)
std::string render_bundle(const FormationBundle& bundle);

// Throws ChannelLineRefused (formation_channel.hpp) with a reason that quotes nothing. When
// `expected_formation_id` is given (the member's MURMUR_FORMATION_ID), the bundle must be for it.
FormationBundle parse_bundle(std::string_view line,
                             std::optional<std::string_view> expected_formation_id = std::nullopt);

} // namespace mur
