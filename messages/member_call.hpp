// member_call.hpp — a `call-member` call between a task actor and its member's egress actor.
//
// Invariant: a call is named by its `mcl_` id from the first message to the last. The task
// asks (CallMember); the egress answers at once with how the call started (CallStart) and
// later, exactly once, with how it ended (CallEnded) — unless the task abandons it first
// (AbandonCall), after which nothing more is sent for that call.
// Seed: "The call returns as soon as the other member holds the task. A member with no room
// for it turns it away busy; the call returns at once, and the runtime keeps offering it the
// task."
#pragma once

#include "messages/a2a_task.hpp"

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct CallMember {
  std::string task_id;  // the calling task
  std::string call_id;  // mcl_…
  std::string member;   // the callee's member name
  std::string text;     // the whole task: a call carries text only
  bool operator==(const CallMember& o) const {
    return task_id == o.task_id && call_id == o.call_id && member == o.member && text == o.text;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CallMember& x) {
  return f(caf::meta::type_name("mur::CallMember"), x.task_id, x.call_id, x.member, x.text);
}

// How a call started: `started` (the member holds it), `busy` (turned away; still offered),
// `rejected`/`failed` (ended already; a CallEnded follows), or `refused` (a tool error: nothing
// was sent, no CallEnded follows).
struct CallStart {
  std::string call_id;
  std::string status;
  std::string member_task_id;
  std::string message;  // for the model: the reason, or the fix
  bool operator==(const CallStart& o) const {
    return call_id == o.call_id && status == o.status && member_task_id == o.member_task_id && message == o.message;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CallStart& x) {
  return f(caf::meta::type_name("mur::CallStart"), x.call_id, x.status, x.member_task_id, x.message);
}

// How a call ended: completed, failed, canceled, rejected, timed_out, unreachable, no_answer.
struct CallEnded {
  std::string call_id;
  std::string member;
  std::string status;
  std::string output;              // the answer, or why there is none
  std::string member_task_id;
  std::vector<NoAnswer> below;     // members further down that gave none (completed/no_answer only)
  std::int64_t duration_ms = 0;
  bool operator==(const CallEnded& o) const {
    return call_id == o.call_id && member == o.member && status == o.status && output == o.output &&
           member_task_id == o.member_task_id && below == o.below;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CallEnded& x) {
  return f(caf::meta::type_name("mur::CallEnded"), x.call_id, x.member, x.status, x.output,
           x.member_task_id, x.below, x.duration_ms);
}

struct AbandonCall {
  std::string call_id;
  bool operator==(const AbandonCall& o) const { return call_id == o.call_id; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, AbandonCall& x) {
  return f(caf::meta::type_name("mur::AbandonCall"), x.call_id);
}

} // namespace mur
