#include "actors/question_queue.hpp"

#include <algorithm>

namespace mur {

bool QuestionQueue::open(OpenQuestion q) {
  auto it = std::find_if(open_.begin(), open_.end(), [&](const OpenQuestion& o) { return o.id == q.id; });
  if (it == open_.end()) {
    open_.push_back(std::move(q));
    return open_.size() == 1;
  }
  const bool changed = it == open_.begin() && it->text != q.text;
  it->text = std::move(q.text);
  return changed;
}

std::optional<OpenQuestion> QuestionQueue::close(const std::string& id, bool* shown) {
  auto it = std::find_if(open_.begin(), open_.end(), [&](const OpenQuestion& o) { return o.id == id; });
  if (shown) *shown = it == open_.begin() && it != open_.end();
  if (it == open_.end()) return std::nullopt;
  OpenQuestion q = std::move(*it);
  open_.erase(it);
  return q;
}

bool QuestionQueue::close_own() {
  const bool shown_own = !open_.empty() && open_.front().on_answer;
  open_.erase(std::remove_if(open_.begin(), open_.end(), [](const OpenQuestion& q) { return bool(q.on_answer); }), open_.end());
  return shown_own;
}

} // namespace mur
