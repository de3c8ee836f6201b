// a2a_task.hpp — an A2A task as the door holds and answers it (the values, not the JSON).
//
// Invariant: a task's state only moves forward: SUBMITTED → WORKING → one terminal state
// (COMPLETED, FAILED, REJECTED, CANCELED); a terminal task never changes again. A busy refusal
// is a REJECTED task with `busy` set; a task ended with end-without-answer is FAILED with
// `no_answer` set and the reason as its status text.
// Rule: an outcome returns into the caller's own task; end-without-answer ends a task FAILED
// (docs/spec/formation.md §How a member gives another work; docs/spec/door.md §Tasks on the wire).
#pragma once

#include "messages/vocabulary/enum_words.hpp"
#include "messages/vocabulary/message_fields.hpp"
#include "messages/vocabulary/task_budget.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mur {

enum class TaskState : std::uint8_t { submitted, working, input_required, completed, failed, rejected, canceled };

// `TASK_STATE_COMPLETED`, … (the A2A v1.0 wire names).
// The A2A wire's names of the states (TASK_STATE_…), the one table both ways.
inline constexpr EnumWords<TaskState, 7> task_state_names{{
  {TaskState::submitted, "TASK_STATE_SUBMITTED"}, {TaskState::working, "TASK_STATE_WORKING"},
  {TaskState::input_required, "TASK_STATE_INPUT_REQUIRED"}, {TaskState::completed, "TASK_STATE_COMPLETED"},
  {TaskState::failed, "TASK_STATE_FAILED"}, {TaskState::rejected, "TASK_STATE_REJECTED"},
  {TaskState::canceled, "TASK_STATE_CANCELED"}}};
std::string to_string(TaskState s); // its TASK_STATE_ name
std::optional<TaskState> task_state_named(std::string_view name); // nullopt for any other word
// `completed`, `failed`, … (the words traces and call outcomes use).
std::string state_word(TaskState s);
bool is_terminal(TaskState s);

// A member further down that gave no answer: `metadata.murmur.noAnswerBelow` entries.
struct NoAnswer {
  std::string member;
  std::string status; // failed, canceled, rejected, timed_out, unreachable, abandoned, no_answer
  MUR_FIELDS(member, status)
};

struct TaskView {
  std::string id;          // tsk_…
  std::string context_id;  // ctx_…
  TaskState state = TaskState::submitted;
  std::string status_text; // terminal status message (the answer's summary, the reason, busy text)
  std::string answer;      // the `response` artifact's text when COMPLETED
  std::string request;     // the task text as received
  bool busy = false;       // metadata.murmur.busy
  bool no_answer = false;  // metadata.murmur.noAnswer
  std::vector<NoAnswer> no_answer_below; // metadata.murmur.noAnswerBelow (≤ 8)
  std::string submitter;   // the credential that started it (never sent on the wire)
  std::vector<std::string> chain; // the members above it, root first, the caller last (messages/vocabulary/call_chain.hpp; never sent back)
  std::int64_t deadline_ms = 0;   // how long its caller still waits, from created_ms (0: no caller's deadline; never sent back)
  Budget budget;                  // what its caller had left (message.metadata.murmur.budget; never sent back)
  Usage usage;                    // what it and the tasks below it spent (metadata.murmur.usage, once ended)
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0; // unix ms of the last state change (TaskStatus.timestamp)
  std::string traceparent;     // the W3C trace context its submitter sent (never sent back; docs/observability.md)

  MUR_FIELDS(id, context_id, state, status_text, answer, request, busy, no_answer, no_answer_below, submitter,
             chain, deadline_ms, budget, usage, created_ms, updated_ms, traceparent)
};

// The door's status text for a busy refusal.
inline constexpr const char* busy_status_text = "task rejected: capsule is busy";
inline constexpr const char* closing_status_text = "task rejected: the session is closing";
inline constexpr std::size_t max_no_answer_below = 8;

} // namespace mur
