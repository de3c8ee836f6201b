// door_request.hpp — what reaches a door actor and what it answers, in-process.
//
// Invariant: no token ever crosses into an actor message: the adapter in front of a door
// (RESTinio in a real process, the loopback network in tests) verifies the Authorization
// header with the door's own verifiers and hands the door only the verdict (who, which scopes,
// whether by formation token). The door turns the verdict into the refusal order of
// docs/spec/door.md §Request processing order and §Refusals at the door, and decides everything
// else.
// Rule: a formation caller gets five methods, on the tasks it started, and nothing of other
// tasks or of the session's control (docs/spec/door.md §What a formation caller reaches).
#pragma once

#include "messages/credentials/door_authorization.hpp"
#include "messages/credentials/door_refusal.hpp"
#include "messages/vocabulary/door_method.hpp"
#include "messages/wire/a2a_task.hpp"

#include "messages/vocabulary/message_fields.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct DoorRequest {
  DoorMethod method = DoorMethod::unknown; // turned from the wire word by the codec (door_method.hpp)
  DoorAuthorization verdict;    // from the adapter; Ok with credential "" on a public door
  bool peer_origin = false;     // x-murmur-task-origin: peer
  // SendMessage
  std::string text;
  std::string message_id;
  std::string context_id;
  bool return_immediately = false; // configuration.returnImmediately: false ⇒ answer at the task's end
  std::vector<std::string> reference_task_ids; // message.referenceTaskIds, deduplicated
  std::vector<std::string> chain; // message.metadata.murmur.chain: the members above (a formation caller's only)
  std::int64_t deadline_ms = 0;   // message.metadata.murmur.deadlineMs: how long the caller still waits (0: not said);
                                  // CancelTask: metadata.murmur.confirmWithinMs, how long the canceller waits
  Budget budget;                  // message.metadata.murmur.budget: what the caller has left (any caller's; it only narrows)
  std::string question;           // message.metadata.murmur.question: the question an answer (taskId) answers
  // GetTask, CancelTask, SubscribeToTask
  std::string task_id;
  // ListTasks
  std::int32_t page_size = 50;
  std::string page_token;
  std::string filter_context_id;
  std::string filter_state;      // a TASK_STATE_* wire name, or "" for every state
  std::int64_t filter_updated_after_ms = 0; // statusTimestampAfter (unix ms), 0 = none
  // SendMessage
  std::string traceparent;        // message.metadata.traceparent: the caller's W3C trace context ("": none)

  MUR_FIELDS(method, verdict, peer_origin, text, message_id, context_id, return_immediately, reference_task_ids,
             chain, deadline_ms, budget, question, task_id, page_size, page_token, filter_context_id, filter_state, filter_updated_after_ms, traceparent)
};

// Either a refusal of the caller (a domain value; http/ maps it to 401/403), a JSON-RPC error,
// or a result.
struct DoorReply {
  DoorRefusal refusal = DoorRefusal::none;
  std::string refusal_message;
  DoorMethod refusal_scope = DoorMethod::unknown; // the scope named in WWW-Authenticate for insufficient_scope
  std::int32_t rpc_code = 0;    // an rpc:: code (messages/vocabulary/rpc_error_codes.hpp); 0 = success
  std::string rpc_message;
  std::string rpc_reason;       // google.rpc.ErrorInfo reason, e.g. TASK_NOT_FOUND
  TaskView task;                // SendMessage, GetTask, CancelTask, SubscribeToTask
  std::vector<TaskView> tasks;  // ListTasks
  std::string next_page_token;
  std::int32_t total_size = 0;
  std::string session_id;       // GetExtendedAgentCard: which session answers

  bool ok() const { return refusal == DoorRefusal::none && rpc_code == 0; }
  bool refused() const { return refusal != DoorRefusal::none; }
  MUR_FIELDS(refusal, refusal_message, refusal_scope, rpc_code, rpc_message, rpc_reason, task, tasks,
             next_page_token, total_size, session_id)
};

// Pushed by a door to every subscriber of a task, for every state change, in order; the last
// one carries a terminal state.
struct TaskEvent {
  TaskView task;
  std::string text_fragment; // non-empty: the answer's text as it streams (an artifact append)
  MUR_FIELDS(task, text_fragment)
};

// Sent by a door-call port to a subscriber when a task's stream ended before a terminal
// state (the connection broke): the subscriber must fall back to polling.
struct TaskStreamLost {
  std::string task_id;
  MUR_FIELDS(task_id)
};

} // namespace mur
