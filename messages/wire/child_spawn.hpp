// child_spawn.hpp — what a member's egress asks of its child port to delegate a task to a
// sub-capsule, and what the port answers.
//
// Invariant: a child is started for exactly one delegation (named by its `mcl_` call id, from
// StartChild to EndChild) from an entry of the capsule's own `capabilities.spawn.allow`; the port
// answers StartChild once, with the child's session and door (ChildStarted, `failure` empty) and
// its operator credential (a Bearer: unprintable, never in a trace), or with the reason it could
// not start (`failure` set, no credential). EndChild ends the child — closing its spawner
// lifeline — whatever it was doing; the port sends nothing more for that call. The slot of the
// formation's live ledger the delegation took (messages/wire/live_slot.hpp) goes with StartChild:
// the port gives it back (FreeLiveSlot) once the child's process has ended, or at once when it
// started none, so a slot is free only when its child is gone.
// Rule: a delegated child shares only the formation id and lives no longer than its parent,
// whose process alone holds its spawner lifeline (docs/spec/choices.md §Sub-capsules).
#pragma once

#include "messages/vocabulary/message_fields.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mur {

struct StartChild {
  std::string call_id;  // the delegation's mcl_ id
  std::string capsule;  // its name, from spawn.allow
  std::string version;  // its exact version, from spawn.allow
  std::string task_id;  // the delegating task (for the child's trace: who spawned it)
  MUR_FIELDS(call_id, capsule, version, task_id)
};

struct ChildStarted {
  std::string call_id;
  std::string session_id; // the child's ses_
  std::string url;        // its door (never shown to a model or a trace)
  std::int64_t pid = 0;
  std::string failure;    // "" ⇒ started; else why not (for the model: a sentence, no secret)
  MUR_FIELDS(call_id, session_id, url, pid, failure)
};

// At most this many delegations of one task run at once (a further one is refused as a tool
// error until an answer is delivered; a script turn that makes more is refused when read). Each
// runs a whole `mur run` process.
inline constexpr std::size_t max_children_at_once = 4;

// One `capabilities.spawn.allow` entry as the runtime hands it on (not a message).
struct SpawnTarget {
  std::string capsule;
  std::string version;
};

// A delegation's target as the task names it (its answers, its fence, who gave no answer):
// "capsule:<name>", never a member's name (admission refuses a capsule named like a callee).
inline constexpr std::string_view capsule_prefix = "capsule:";
inline bool is_capsule_target(const std::string& target) { return target.rfind(capsule_prefix, 0) == 0; }
inline std::string capsule_target(const std::string& capsule) { return std::string(capsule_prefix) + capsule; }
inline std::string capsule_of(const std::string& target) { return target.substr(capsule_prefix.size()); }

struct EndChild {
  std::string call_id;
  MUR_FIELDS(call_id)
};

} // namespace mur
