// loopback_listener.hpp — a small HTTP server on 127.0.0.1 (an OS-chosen port, or a given one)
// that hands each request to one handler and lets the answer be given later, from any thread,
// either whole or as a stream of chunks (an SSE response). The member's loopback MCP tool server
// runs on it (member/harness_model.cpp), and so does `mur view` (launcher/view/view_server.hpp).
//
// Invariant: it binds 127.0.0.1 only; it keeps at most `bounds.max_connections` connections
// open and each stream at most `bounds.max_stream_bytes` behind its peer; a request body over
// `max_body` is answered 413 before the handler sees it (far over it, the connection is closed
// when the headers end); each request is answered at most once, by the handler's responder — either
// `answer` or `stream_open` (then any number of `stream_write`, then `stream_close`), whichever
// comes first; the other is then refused (returns false / does nothing). A responder used after
// stop() does nothing; stopping ends every open stream and closes what is open. A stream whose
// peer has gone reports it: its next `stream_write` returns false. It prints nothing.
// Implemented in http/door_server.cpp, the one translation unit that includes RESTinio.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mur {

struct PlainRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The value of the header named `lowercase_name` (names compare without case), or nullptr.
  const std::string* header(const char* lowercase_name) const {
    for (const auto& [n, v] : headers)
      if (ascii_lower(n) == lowercase_name) return &v;
    return nullptr;
  }

  // ASCII letters lowered, every other byte as it is (header names and the words HTTP compares).
  static std::string ascii_lower(std::string s) {
    for (auto& c : s)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
  }
};

struct PlainAnswer {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Answers one request; safe to call from any thread; only the first answer counts.
class PlainResponder {
public:
  virtual ~PlainResponder() = default;
  virtual void answer(PlainAnswer a) = 0;
  // A streaming answer: status and headers now, the body in chunks as they come (chunked
  // transfer encoding). False when the request was already answered or the listener stopped.
  virtual bool stream_open(int status, std::vector<std::pair<std::string, std::string>> headers) = 0;
  // Sends one chunk. `sent` (optional) is called once, from the listener's thread, with whether
  // the chunk reached the socket. False (and `sent` never called) when the stream is not open:
  // never opened, closed, its peer gone, or the listener stopped.
  virtual bool stream_write(std::string chunk, std::function<void(bool sent)> sent = {}) = 0;
  virtual void stream_close() = 0; // ends the stream; idempotent
};

// What one listener holds at most: connections open at once (one past is closed at once, and
// accepting resumes as connections end), and per stream the bytes written but not yet taken by
// a slow peer (past it the stream is closed: its next stream_write returns false).
struct ListenerBounds {
  std::size_t max_connections = 64;
  std::size_t max_stream_bytes = 1024 * 1024;
};

class LoopbackListener {
public:
  using Handler = std::function<void(PlainRequest, std::shared_ptr<PlainResponder>)>;
  // Binds 127.0.0.1:`port` (0: the OS chooses) and serves; returns once listening. Throws
  // mur::Failure (E-RUN-047; E-RUN-051 for a given port that cannot be bound).
  LoopbackListener(Handler handler, std::size_t max_body, std::uint16_t port = 0, ListenerBounds bounds = {});
  ~LoopbackListener();
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  std::uint16_t port() const;
  std::string url() const; // http://127.0.0.1:PORT

  void stop(); // idempotent

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mur
