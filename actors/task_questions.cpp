#include "actors/task_questions.hpp"

#include "actors/atoms.hpp"
#include "messages/wire/operator_question.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

namespace mur::task_detail {

namespace {

// The door shows the first open question (INPUT_REQUIRED), or none (WORKING again).
void show_question(task_ptr self) {
  auto& st = self->state;
  if (!st.setup.door) return;
  if (const OpenQuestion* q = st.questions.shown()) {
    trace(self, "input_required", {{"task_id", st.setup.task.id}, {"question_id", q->id}, {"question", capped(q->text)}});
    self->send(st.setup.door, TaskAsks{st.setup.task.id, q->text});
  } else {
    self->send(st.setup.door, TaskResumed{st.setup.task.id});
  }
}

void open_question(task_ptr self, OpenQuestion q) {
  if (self->state.questions.open(std::move(q))) show_question(self);
}

} // namespace

void close_question(task_ptr self, const std::string& id) {
  bool shown = false;
  if (self->state.questions.close(id, &shown) && shown) show_question(self);
}

void ask_person(task_ptr self, const std::string& question, std::function<void(std::string, bool)> on_answer) {
  auto& st = self->state;
  const std::string id = "ask-" + std::to_string(++st.asked);
  const std::string asker = st.setup.member.empty() ? std::string("the member") : st.setup.member;
  open_question(self, OpenQuestion{id, asker + " asks: " + question, std::move(on_answer)});
  self->delayed_send(self, std::chrono::milliseconds(st.setup.input_timeout_ms), input_timeout_atom_v, id);
}

// The door passes on the answer to the question it shows: its own ends the tool call with it; a
// callee's goes down to that call.
// (The door is told first: an answer's callback may end the task, after which nothing is sent.)
void on_answer(task_ptr self, const TaskAnswer& a) {
  auto& st = self->state;
  const OpenQuestion* shown = st.questions.shown();
  if (shown == nullptr || (!a.question.empty() && a.question != shown->text)) // for a question no longer shown
    return show_question(self);
  auto q = *st.questions.close(shown->id);
  trace(self, "input_answered", {{"task_id", st.setup.task.id}, {"question_id", q.id}, {"answered_by", a.answerer}});
  show_question(self);
  if (q.on_answer) q.on_answer("The operator answered: " + a.text, false);
  else if (st.setup.egress) self->send(st.setup.egress, AnswerCall{q.id, a.text, q.text});
}

void on_input_timeout(task_ptr self, const std::string& id) {
  auto& st = self->state;
  bool shown = false;
  auto q = st.questions.close(id, &shown);
  if (!q) return; // answered already
  trace(self, "input_timeout", {{"task_id", st.setup.task.id}, {"question_id", id}});
  if (shown) show_question(self);
  q->on_answer("tool error: nobody answered within " + std::to_string(st.setup.input_timeout_ms / 1000) +
                 " s (lifecycle.input_timeout_secs); go on without the answer.", true);
}

// A callee's task asks a person (or no longer does): its question is shown here too.
void on_call_asks(task_ptr self, const CallAsks& c) {
  if (self->state.round.find(c.call_id) == nullptr) return;
  if (c.asking) open_question(self, OpenQuestion{c.call_id, c.text, nullptr});
  else close_question(self, c.call_id);
}

void close_own_questions(task_ptr self) {
  if (self->state.questions.close_own()) show_question(self);
}

} // namespace mur::task_detail
