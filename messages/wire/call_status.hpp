// call_status.hpp — how a `call-member` call started or ended, as a closed set of words.
//
// Invariant: a CallStart carries started, busy, refused, or (when the call ended at once) one of
// the ending words; a CallEnded carries only an ending word: completed, failed, canceled,
// rejected, timed_out, unreachable, no_answer. `to_string` gives the word traces and tool
// results print (unchanged from when statuses were strings); `parse_call_status` reads it back.
// Rule: a busy callee's refusal comes back at once (docs/spec/door.md §Acceptance and busy).
#pragma once

#include "messages/wire/a2a_task.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mur {

enum class CallStatus : std::uint8_t {
  started,     // the callee holds the task
  busy,        // turned away busy; still offered
  refused,     // a tool error: nothing was sent, no CallEnded follows
  completed,
  failed,
  canceled,
  rejected,
  timed_out,
  unreachable,
  no_answer,
};

std::string to_string(CallStatus s);
std::optional<CallStatus> parse_call_status(std::string_view word);

// A callee task's terminal state as the call's ending (completed, failed, canceled, rejected).
CallStatus call_status_of(TaskState terminal);

} // namespace mur
