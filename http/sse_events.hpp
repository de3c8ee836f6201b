// sse_events.hpp — cuts a text/event-stream body into events, whatever the chunking of the
// bytes that carry it (one byte at a time or the whole body at once).
//
// Invariant: an event is handed on only once its blank line has arrived; its payload is its
// `data:` lines (one optional space after the colon removed) joined with '\n'; CRs are dropped,
// so CRLF and LF streams cut the same; comment lines (':') and other fields are ignored; an
// event without data is not handed on; an unfinished event at the end is held, never guessed.
// Used by CurlPool for every SSE stream (the door client and model servers) and by the tests
// that feed recorded streams through the same cutting.
// Spec: the WHATWG "server-sent events" interpretation of an event stream (data field only).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace mur {

class SseEvents {
public:
  // Feeds bytes; calls `on_data` once per complete event with its data payload.
  void feed(const char* bytes, std::size_t len, const std::function<void(const std::string&)>& on_data);
  // Text received after the last complete event (an unfinished event).
  const std::string& pending() const { return pending_; }

private:
  std::string pending_;
};

} // namespace mur
