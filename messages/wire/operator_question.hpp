// operator_question.hpp — a member asks a person: the question goes up the chain to the task a
// person started, the answer comes back down to the member that asked.
//
// Invariant: a task waits for at most one answer at a time at its door (its first open question;
// the others wait behind it, in the order they came). A question reads "<asker> asks: <text>" from
// where it was asked to the top, unchanged on the way. An answer goes to the question the door
// showed, and only while the door shows it; once answered, withdrawn or timed out, the task is
// WORKING again. An answer names the question it answers (the text its answerer saw): a door
// whose task shows another question refuses it (-32004), and a task drops it.
// Rule: ask-operator puts the member's task in TASK_STATE_INPUT_REQUIRED; a callee's question
// surfaces up the chain; the operator answers with SendMessage on the task's id (docs/ask-operator.md).
#pragma once

#include "messages/vocabulary/message_fields.hpp"

#include <string>

namespace mur {

// task → door: the task waits for input; `text` is the question as a person reads it.
struct TaskAsks {
  std::string task_id;
  std::string text;
  MUR_FIELDS(task_id, text)
};

// task → door: the task no longer waits for input (answered, withdrawn or timed out).
struct TaskResumed {
  std::string task_id;
  MUR_FIELDS(task_id)
};

// door → task: the answer to the question it shows (SendMessage on its id while INPUT_REQUIRED).
// `question`: the question the answerer saw (message.metadata.murmur.question; "" when not said):
// an answer to another question than the one shown is dropped.
struct TaskAnswer {
  std::string task_id;
  std::string text;
  std::string answerer; // the credential that answered (operator, member:<name>, …)
  std::string question;
  MUR_FIELDS(task_id, text, answerer, question)
};

// egress call → task: the callee's task waits for input with `text` (asking), or no longer does.
struct CallAsks {
  std::string call_id;
  std::string member;
  std::string text;
  bool asking = true;
  MUR_FIELDS(call_id, member, text, asking)
};

// task → egress → its call: send this answer to the callee's task (SendMessage on its id), for
// `question`, the question as the callee's task showed it.
struct AnswerCall {
  std::string call_id;
  std::string text;
  std::string question;
  MUR_FIELDS(call_id, text, question)
};

} // namespace mur
