// member_call.hpp — a `call-member` call between a task actor and its member's egress actor.
//
// Invariant: a call is named by its `mcl_` id from the first message to the last. The task
// asks (CallMember); the egress answers at once with how the call started (CallStart) and
// later, exactly once, with how it ended (CallEnded) — unless the task abandons it first
// (AbandonCall), after which nothing more is sent for that call.
// Rule: a call returns once the callee holds the task, or at once when it is busy, and is then
// offered again (docs/spec/door.md §Calling another member's door).
#pragma once

#include "messages/vocabulary/message_fields.hpp"
#include "messages/wire/a2a_task.hpp"
#include "messages/wire/call_status.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct CallMember {
  std::string task_id;  // the calling task
  std::string call_id;  // mcl_…
  std::string member;   // the callee's member name
  std::string text;     // the whole task: a call carries text only
  std::vector<std::string> chain; // the members above the callee's task (the caller last; messages/vocabulary/call_chain.hpp)
  std::int64_t deadline_ms = 0;   // how long the calling task may still wait (its own caller's deadline); 0: only the call deadline
  Budget budget;                  // what the calling task has left (messages/vocabulary/task_budget.hpp)
  std::string context_id;         // the calling task's contextId (its callee's is derived: actors/callee_context.hpp)
  std::string trace_id;           // the calling task's trace (32 hex; "": none — docs/observability.md)
  MUR_FIELDS(task_id, call_id, member, text, chain, deadline_ms, budget, context_id, trace_id)
};

// How a call started: `started` (the member holds it), `busy` (turned away; still offered),
// `rejected`/`failed` (ended already; a CallEnded follows), or `refused` (a tool error: nothing
// was sent, no CallEnded follows).
struct CallStart {
  std::string call_id;
  CallStatus status = CallStatus::started;
  std::string member_task_id;
  std::string message;  // for the model: the reason, or the fix
  std::string cause;    // refused: the trace's call_refused cause ("" ⇒ "egress")
  MUR_FIELDS(call_id, status, member_task_id, message, cause)
};

// How a call ended: completed, failed, canceled, rejected, timed_out, unreachable, no_answer.
struct CallEnded {
  std::string call_id;
  std::string member;
  CallStatus status = CallStatus::completed; // an ending word only
  std::string output;              // the answer, or why there is none
  std::string member_task_id;
  std::vector<NoAnswer> below;     // members further down that gave none (completed/no_answer only)
  std::int64_t duration_ms = 0;
  Usage usage;                     // what the callee's task and those below it spent, as its answer says
  MUR_FIELDS(call_id, member, status, output, member_task_id, below, duration_ms, usage)
};

// `cancel`: the calling task was canceled, so the callee's task is canceled too (CancelTask with
// the caller's own credential, on the task it took); otherwise it is left to finish. With
// `confirm_within_ms` > 0 the task waits for a CallCanceled, which asks the callee to confirm
// within that bound (messages/vocabulary/cancel_confirm.hpp).
struct AbandonCall {
  std::string call_id;
  bool cancel = false;
  std::int64_t confirm_within_ms = 0;
  MUR_FIELDS(call_id, cancel, confirm_within_ms)
};

// What canceling a call undid, for the canceled task's answer: `canceled` (the callee's task was
// canceled, and `below` is what it canceled in turn), `unconfirmed` (no confirmation within the
// bound; `detail` says what happened), `ended` (the callee's task had ended on its own) or
// `not_held` (no task was taken: nothing ran there).
struct CallCanceled {
  std::string call_id;
  std::string member;
  std::string outcome;
  std::string member_task_id;
  std::vector<NoAnswer> below;
  std::string detail;
  MUR_FIELDS(call_id, member, outcome, member_task_id, below, detail)
};

} // namespace mur
