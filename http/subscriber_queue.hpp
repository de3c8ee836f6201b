// subscriber_queue.hpp — what waits to be written to one SSE subscriber of a door's task.
//
// Invariant: a subscriber never holds more than `window` bytes written to its socket and not
// yet confirmed (and the one item that crossed it), plus `max_pending_bytes` of text and
// `max_pending_items` items waiting behind them; state events are bounded by count only (the
// completed task's artifact carries the whole answer, bounded by the model's caps). Text
// fragments that arrive while the window is full are coalesced into the text already waiting
// (one artifact chunk instead of thousands); state events keep their place in order after the
// text before them. Past either bound the queue overflows: the caller tells the subscriber why
// and closes its stream — a subscriber that falls behind is dropped, never buffered without end.
// So a member's streams cost at most connections × (window + max_pending_bytes), whatever the
// model's speed and however slowly a subscriber reads.
// Rule: a stream (SubscribeToTask, SendStreamingMessage) never buffers without end; a laggard
// is dropped (docs/spec/a2a.md §Streaming; docs/spec/choices.md §Hostile input).
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>

namespace mur {

struct SubscriberLimits {
  std::size_t window = 64 * 1024;              // written, not yet confirmed by the socket
  std::size_t max_pending_bytes = 512 * 1024;  // waiting behind the window
  std::size_t max_pending_items = 64;          // state events (text coalesces into one item)
};

class SubscriberQueue {
public:
  struct Item {
    bool text = false;  // a text fragment (rendered as an artifact chunk when written)
    std::string bytes;  // the text, or the whole rendered SSE event
  };

  explicit SubscriberQueue(SubscriberLimits limits = {}) : limits_(limits) {}

  // False: the queue overflowed (nothing was added); the subscriber must be dropped.
  bool push_text(const std::string& fragment);
  bool push_event(std::string event);

  // The next item that may be written now, or nullopt (nothing waits, or the window is full).
  // The caller writes it and reports its size with `sent` once it is on its way.
  std::optional<Item> take();
  void sent(std::size_t bytes) { in_flight_ += bytes; }
  // The socket confirmed `bytes` written.
  void confirmed(std::size_t bytes) { in_flight_ -= bytes < in_flight_ ? bytes : in_flight_; }

  bool idle() const { return items_.empty() && in_flight_ == 0; }
  bool empty() const { return items_.empty(); }
  std::size_t in_flight() const { return in_flight_; }
  std::size_t pending_bytes() const { return pending_bytes_; }
  const SubscriberLimits& limits() const { return limits_; }

private:
  SubscriberLimits limits_;
  std::deque<Item> items_;
  std::size_t pending_bytes_ = 0;
  std::size_t in_flight_ = 0;
};

} // namespace mur
