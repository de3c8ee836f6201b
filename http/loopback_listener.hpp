// loopback_listener.hpp — a small HTTP server on 127.0.0.1 (an OS-chosen port) that hands each
// request to one handler and lets the answer be given later, from any thread. The member's
// loopback MCP tool server runs on it (member/harness_model.cpp).
//
// Invariant: it binds 127.0.0.1 only; a request body over `max_body` is answered 413 before the
// handler sees it; each request is answered at most once, by the handler's responder (one used
// after stop() does nothing; stopping closes what is open). It prints nothing. Implemented in http/door_server.cpp, the one translation unit that includes RESTinio.
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
};

class LoopbackListener {
public:
  using Handler = std::function<void(PlainRequest, std::shared_ptr<PlainResponder>)>;
  // Binds and serves; returns once listening. Throws mur::Failure (E-RUN-047).
  LoopbackListener(Handler handler, std::size_t max_body);
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
