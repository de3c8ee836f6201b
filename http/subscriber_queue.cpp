// subscriber_queue.cpp — see subscriber_queue.hpp.
#include "http/subscriber_queue.hpp"

namespace mur {

bool SubscriberQueue::push_text(const std::string& fragment) {
  if (fragment.empty()) return true;
  if (pending_bytes_ + fragment.size() > limits_.max_pending_bytes) return false;
  if (!items_.empty() && items_.back().text) {
    items_.back().bytes += fragment;
  } else {
    if (items_.size() >= limits_.max_pending_items) return false;
    items_.push_back(Item{true, fragment});
  }
  pending_bytes_ += fragment.size();
  return true;
}

bool SubscriberQueue::push_event(std::string event) {
  // State events are few (a task moves forward through a handful of states) and are bounded by
  // their count, not their bytes: the completed task's artifact holds the whole answer (up to
  // the model's cap), and a subscriber keeping up must not be dropped for it.
  if (items_.size() >= limits_.max_pending_items) return false;
  pending_bytes_ += event.size();
  items_.push_back(Item{false, std::move(event)});
  return true;
}

std::optional<SubscriberQueue::Item> SubscriberQueue::take() {
  if (items_.empty() || in_flight_ >= limits_.window) return std::nullopt;
  Item it = std::move(items_.front());
  items_.pop_front();
  pending_bytes_ -= it.bytes.size();
  return it;
}

} // namespace mur
