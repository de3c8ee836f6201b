// curl_pool.hpp — every outgoing HTTP call of a process, on ONE thread driving libcurl's multi
// interface: many plain calls and Server-Sent-Event streams at once, no thread per call.
//
// Invariant: each submitted call ends exactly once through `on_done` (status 0 and a reason on
// a transport failure, a timeout or a cancel; the reason is one of `transport_reason`'s words
// when libcurl tells which, else libcurl's own text); a reply whose Content-Type is
// text/event-stream is cut into events and each event's `data:` payload goes to `on_event`
// before `on_done`. Header lines may carry a bearer secret: they are handed only to libcurl and
// wiped when the call ends; nothing here prints a header, a body or a URL. No reply grows
// without a cap: a plain reply past `max_body`, or one event of a stream past `max_event` (never
// 0: every stream is capped), ends the transfer at once (the write callback aborts it) with
// `too_large` or `event_too_large`. Callbacks run on the
// pool thread and must only hand work on (e.g. send an actor a message).
// Rule: libcurl runs in one client thread using the multi interface (docs/ARCHITECTURE.md
// §Threads in one process, "curl pool").
#pragma once

#include "http/stream_caps.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mur {

// The reasons `on_done` names a transport failure with (status 0).
namespace transport_reason {
inline constexpr const char* refused = "connection refused";         // nothing listens at the port
inline constexpr const char* timed_out = "timed out";                // no answer within the call's time
inline constexpr const char* connect_timed_out = "connect timed out";// the connection was not accepted in time
inline constexpr const char* stalled = "stream stalled";             // a stream sent nothing within its stall limit
inline constexpr const char* reset = "connection reset";             // the peer broke the connection
inline constexpr const char* no_reply = "closed without a reply";    // the peer closed before any HTTP answer
inline constexpr const char* cut = "closed mid-reply";               // the peer closed while answering
inline constexpr const char* too_large = "reply too large";          // a plain reply passed the call's max_body
inline constexpr const char* event_too_large = "stream event too large"; // one SSE event passed the call's max_event
} // namespace transport_reason

// What a reply said besides its status and body (for on_done_meta).
struct HttpReplyMeta {
  std::string retry_after;  // the Retry-After header's value, "" when none
  std::string session_id;   // the Mcp-Session-Id header's value (a streamable HTTP MCP server's), "" when none
  bool received = false;    // any byte of a reply (a header line or body) arrived
};

// How long a stopping pool lets its farewells run, whatever their own timeouts say.
inline constexpr std::chrono::milliseconds farewell_cap{2000};

struct HttpCall {
  std::string url;
  std::string method = "POST";                 // POST, GET or DELETE (no body)
  std::string body;
  std::vector<std::string> headers;            // "Name: value" lines
  std::chrono::milliseconds timeout{30000};    // whole call; streams: 0 (none) and a stall limit
  std::chrono::milliseconds stall_limit{30000};// a stream that sends nothing this long has failed
  std::function<void(const std::string& data)> on_event;
  // Instead of on_event, when set: the same, with the reply's headers as read so far (a streamed
  // answer's Mcp-Session-Id is known before its first event).
  std::function<void(const std::string& data, const HttpReplyMeta& meta)> on_event_meta;
  std::function<void(long status, std::string body, std::string error)> on_done;
  // Instead of on_done, when set: the same, with what the reply said besides.
  std::function<void(long status, std::string body, std::string error, HttpReplyMeta meta)> on_done_meta;
  bool https = false;            // may the URL be https:// (model servers, doors on other hosts)
  std::string authority;         // PEM: with https, trust this certificate authority and nothing else
  std::size_t max_body = 0;      // a plain reply longer than this fails ("reply too large"); 0: no cap
  std::size_t max_event = door_stream_max_event; // one SSE event longer than this fails ("stream event too large")
  // A delivery window for on_event (optional): the pool adds each event's data size before
  // handing it on, the consumer subtracts it once it has read the event; while the count is at
  // `window_bytes` or more the transfer is paused (libcurl's CURL_WRITEFUNC_PAUSE: nothing more is
  // read from the socket) and it resumes by itself once the consumer has caught up. So a fast
  // server cannot queue more than about window_bytes of events ahead of a slow reader.
  std::shared_ptr<std::atomic<std::size_t>> in_flight;
  std::size_t window_bytes = 0;
  // A farewell (a tool server's session DELETE, sent as its member ends) is let finish when the
  // pool stops, within its own timeout and never longer than farewell_cap after the stop began;
  // every other call ends at once then.
  bool farewell = false;
};

class CurlPool {
public:
  CurlPool();  // starts the thread
  ~CurlPool(); // ends every open call (on_done with "the client is stopping") but farewells, and joins
  CurlPool(const CurlPool&) = delete;
  CurlPool& operator=(const CurlPool&) = delete;

  // Queues a call; returns its id (for cancel).
  std::uint64_t submit(HttpCall call);
  // Ends an open call early: on_done(0, "", "canceled"). Unknown ids are ignored.
  void cancel(std::uint64_t id);

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

// How a call ended, for a caller that waits for it: a command's main thread, a test — never an
// actor (it blocks the thread).
struct HttpOutcome {
  long status = 0;
  std::string body;
  std::string error;
};

// Submits `call` to `pool` (its on_done is set here) and waits until it ends.
HttpOutcome call_and_wait(CurlPool& pool, HttpCall call);

} // namespace mur
