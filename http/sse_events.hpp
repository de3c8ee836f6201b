// sse_events.hpp — cuts a text/event-stream body into events, whatever the chunking of the
// bytes that carry it (one byte at a time or the whole body at once), and caps one event's size.
//
// Invariant: an event is handed on only once its blank line has arrived; its payload is its
// `data:` lines (one optional space after the colon removed) joined with '\n'; CRs are dropped,
// so CRLF and LF streams cut the same; comment lines (':') and other fields are ignored; an
// event without data is not handed on; an unfinished event at the end is held, never guessed.
// No event (its lines, CRs dropped, finished or not) longer than `max_event` bytes is held or
// handed on: the first one that passes it makes `feed` return false, and every later feed is
// ignored (false again) — the caller ends the stream. Bytes are scanned once each, so a long
// event arriving in small pieces costs its length, not its length squared.
// Used by CurlPool for every SSE stream (the door client and model servers) and by the tests
// that feed recorded streams through the same cutting.
// Spec: the WHATWG "server-sent events" interpretation of an event stream (data field only);
// one event is capped (docs/models.md "Limits").
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace mur {

class SseEvents {
public:
  // max_event 0: no cap (tests reading recorded fixtures); CurlPool always passes one.
  explicit SseEvents(std::size_t max_event = 0) : max_event_(max_event) {}

  // Feeds bytes; calls `on_data` once per complete event with its data payload. False once an
  // event has passed max_event (then nothing more is read).
  bool feed(const char* bytes, std::size_t len, const std::function<void(const std::string&)>& on_data);
  // Text received after the last complete event (an unfinished event).
  const std::string& pending() const { return pending_; }
  bool overflowed() const { return overflowed_; }

private:
  std::size_t max_event_;
  std::string pending_;
  std::size_t scanned_ = 0; // pending_[0, scanned_) holds no "\n\n"
  bool overflowed_ = false;
};

} // namespace mur
