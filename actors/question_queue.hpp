// question_queue.hpp — the questions for a person a task holds open: its own (ask-operator) and
// those its callees asked, which it passes up.
//
// Invariant: a task shows one question at a time at its door, the first one open; the others wait
// in the order they came. A callee's question is held once per call (a new text replaces the old,
// in place). An answer goes to the question shown, which is then closed; a question that is
// withdrawn (its call ended or no longer asks) or timed out is closed wherever it stands.
// Rule: a callee's question surfaces up the chain so the entry's task is input-required with the
// question and who asks; the answer travels down to the asking member (docs/ask-operator.md).
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>

namespace mur {

struct OpenQuestion {
  std::string id;   // its own: "ask-<n>"; a callee's: the call's mcl_/dlg_ id
  std::string text; // as the person reads it: "<asker> asks: <question>"
  // Its own: the tool result (the answer, or why there is none); a callee's: null (sent down).
  std::function<void(std::string text, bool is_error)> on_answer;
};

class QuestionQueue {
public:
  // Opens `q` (or replaces the text of the one with its id); true when the question shown changed.
  bool open(OpenQuestion q);
  // Closes the question with `id`; it, when it was open. `shown` says whether it was the one shown.
  std::optional<OpenQuestion> close(const std::string& id, bool* shown = nullptr);
  // Closes every own question (those with an on_answer), unanswered; true when the one shown was among them.
  bool close_own();
  // The question shown (null: none is open).
  const OpenQuestion* shown() const { return open_.empty() ? nullptr : &open_.front(); }
  bool empty() const { return open_.empty(); }

private:
  std::deque<OpenQuestion> open_;
};

} // namespace mur
