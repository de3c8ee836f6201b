// door_request.hpp — what reaches a door actor and what it answers, in-process.
//
// Invariant: no token ever crosses into an actor message: the adapter in front of a door
// (RESTinio in a real process, the loopback network in tests) verifies the Authorization
// header with the door's own verifiers and hands the door only the verdict (who, which scopes,
// whether by formation token). The door turns the verdict into the refusal order of
// murmur-door.md §1.3/§2.3 and decides everything else.
// Seed: "A formation credential reaches exactly five methods on the door it was issued for …
// It reaches no other member's task, and nothing that watches or stops the session."
#pragma once

#include "messages/a2a_task.hpp"
#include "messages/door_authorization.hpp"
#include "messages/door_refusal.hpp"

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DoorAuthorization& x) {
  return f(caf::meta::type_name("mur::DoorAuthorization"), x.kind, x.credential, x.scopes,
           x.is_formation, x.caller);
}

// The DoorRequest method of the public card probe (GET /.well-known/agent-card.json); the door
// methods themselves are the scopes of door_scope.hpp.
inline constexpr const char* card_method = "agent-card";

struct DoorRequest {
  std::string method;           // SendMessage, GetTask, ListTasks, CancelTask, SubscribeToTask, …
  DoorAuthorization verdict;    // from the adapter; Ok with credential "" on a public door
  bool peer_origin = false;     // x-murmur-task-origin: peer
  // SendMessage
  std::string text;
  std::string message_id;
  std::string context_id;
  bool return_immediately = false; // configuration.returnImmediately: false ⇒ answer at the task's end
  std::vector<std::string> reference_task_ids; // message.referenceTaskIds, deduplicated
  // GetTask, CancelTask, SubscribeToTask
  std::string task_id;
  // ListTasks
  std::int32_t page_size = 50;
  std::string page_token;
  std::string filter_context_id;
  std::string filter_state;      // a TASK_STATE_* wire name, or "" for every state
  std::int64_t filter_updated_after_ms = 0; // statusTimestampAfter (unix ms), 0 = none

  bool operator==(const DoorRequest& o) const {
    return method == o.method && verdict.kind == o.verdict.kind && verdict.credential == o.verdict.credential &&
           peer_origin == o.peer_origin && text == o.text && message_id == o.message_id &&
           context_id == o.context_id && return_immediately == o.return_immediately &&
           reference_task_ids == o.reference_task_ids && task_id == o.task_id && page_size == o.page_size &&
           page_token == o.page_token && filter_context_id == o.filter_context_id &&
           filter_state == o.filter_state && filter_updated_after_ms == o.filter_updated_after_ms;
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DoorRequest& x) {
  return f(caf::meta::type_name("mur::DoorRequest"), x.method, x.verdict, x.peer_origin, x.text,
           x.message_id, x.context_id, x.return_immediately, x.reference_task_ids, x.task_id, x.page_size, x.page_token, x.filter_context_id, x.filter_state, x.filter_updated_after_ms);
}

// Either a refusal of the caller (a domain value; http/ maps it to 401/403), a JSON-RPC error,
// or a result.
struct DoorReply {
  DoorRefusal refusal = DoorRefusal::none;
  std::string refusal_message;
  std::string refusal_scope;    // the scope named in WWW-Authenticate for insufficient_scope
  std::int32_t rpc_code = 0;    // an rpc:: code (messages/rpc_error_codes.hpp); 0 = success
  std::string rpc_message;
  std::string rpc_reason;       // google.rpc.ErrorInfo reason, e.g. TASK_NOT_FOUND
  TaskView task;                // SendMessage, GetTask, CancelTask, SubscribeToTask
  std::vector<TaskView> tasks;  // ListTasks
  std::string next_page_token;
  std::int32_t total_size = 0;
  std::string session_id;       // GetExtendedAgentCard: which session answers

  bool ok() const { return refusal == DoorRefusal::none && rpc_code == 0; }
  bool refused() const { return refusal != DoorRefusal::none; }
  bool operator==(const DoorReply& o) const {
    return refusal == o.refusal && rpc_code == o.rpc_code && task == o.task &&
           tasks == o.tasks && next_page_token == o.next_page_token && total_size == o.total_size &&
           session_id == o.session_id;
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, DoorReply& x) {
  return f(caf::meta::type_name("mur::DoorReply"), x.refusal, x.refusal_message,
           x.refusal_scope, x.rpc_code, x.rpc_message, x.rpc_reason, x.task, x.tasks, x.next_page_token,
           x.total_size, x.session_id);
}

// Pushed by a door to every subscriber of a task, for every state change, in order; the last
// one carries a terminal state.
struct TaskEvent {
  TaskView task;
  bool operator==(const TaskEvent& o) const { return task == o.task; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TaskEvent& x) {
  return f(caf::meta::type_name("mur::TaskEvent"), x.task);
}

// Sent by a door-call port to a subscriber when a task's stream ended before a terminal
// state (the connection broke): the subscriber must fall back to polling.
struct TaskStreamLost {
  std::string task_id;
  bool operator==(const TaskStreamLost& o) const { return task_id == o.task_id; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TaskStreamLost& x) {
  return f(caf::meta::type_name("mur::TaskStreamLost"), x.task_id);
}

} // namespace mur
