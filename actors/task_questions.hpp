// task_questions.hpp — a task's questions for a person: its own (ask-operator) and its callees'
// (CallAsks), shown one at a time at its door, and the answers that come back (TaskAnswer).
//
// Invariant: the door shows the first open question (TaskAsks) or none (TaskResumed) whenever
// that changes; an answer naming another question than the one shown is dropped; the door is
// told before an answer's callback runs (the callback may end the task). A callee's answer goes
// down as AnswerCall naming the question it answers.
// Rule: a callee's question surfaces up the chain; the answer travels down to the asking member
// (docs/ask-operator.md).
#pragma once

#include "actors/task_state.hpp"

#include <functional>
#include <string>

namespace mur::task_detail {

// ask-operator: the task's own question, open until answered or lifecycle.input_timeout_secs.
void ask_person(task_ptr self, const std::string& question, std::function<void(std::string, bool)> on_answer);
// The door passes on the answer to the question it shows.
void on_answer(task_ptr self, const TaskAnswer& a);
// Its own question `id` waited lifecycle.input_timeout_secs: the tool call gets an error.
void on_input_timeout(task_ptr self, const std::string& id);
// A callee's task asks a person (or no longer does).
void on_call_asks(task_ptr self, const CallAsks& c);
// The question of call `id` is withdrawn (its call ended).
void close_question(task_ptr self, const std::string& id);
// The own questions of a turn that ended close unanswered.
void close_own_questions(task_ptr self);

} // namespace mur::task_detail
