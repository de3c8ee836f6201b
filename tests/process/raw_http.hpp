// raw_http.hpp — raw loopback TCP for tests that behave as an attacker would (connections that
// send nothing, bodies that never finish, pipelined bytes), a member's memory as the kernel
// counts it, and a Chat Completions server that streams as fast as its client reads.
//
// Invariant: no read blocks past its bound (poll on every wait; a bound is a safety net far
// above any real run, never a timing assertion); every descriptor is closed with its object;
// FastModel ends its thread and its socket when it goes away.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace mur::test {

class RawConn {
public:
  // Connects to 127.0.0.1:port; `rcvbuf` > 0 sets SO_RCVBUF first (a peer that holds little).
  explicit RawConn(int port, int rcvbuf = 0);
  ~RawConn();
  RawConn(RawConn&& o) noexcept;
  RawConn& operator=(RawConn&&) = delete;
  RawConn(const RawConn&) = delete;

  void send(const std::string& bytes); // best effort: a closed peer ends the sending quietly
  // True when the peer closed (EOF or reset) within `bound`; bytes it sent meanwhile are kept.
  bool closed_within(std::chrono::milliseconds bound);
  // What arrived until `marker` was seen (or the peer closed, or `bound` passed).
  std::string read_until(const std::string& marker, std::chrono::milliseconds bound);
  // Everything until the peer closes (or `bound` passes).
  std::string read_to_close(std::chrono::milliseconds bound);
  bool closed() const { return closed_; }
  int fd() const { return fd_; }

private:
  bool read_once(int timeout_ms); // false when nothing came in time
  int fd_ = -1;
  bool closed_ = false;
  std::string got_;
};

// Waits (bounded) until at least `expected` of `conns` were closed by their peer; returns how
// many were closed then.
std::size_t count_closed(std::vector<RawConn>& conns, std::size_t expected, std::chrono::milliseconds bound);

// A loopback port free a moment ago (bound to 0, then closed).
int free_port();
// True once 127.0.0.1:port accepts a connection (tried every 50 ms, at most `bound`).
bool wait_listening(int port, std::chrono::milliseconds bound);

// VmRSS of `pid` in KiB (0 when unreadable).
std::size_t rss_kib(pid_t pid);

std::size_t count_of(const std::string& text, const std::string& needle);

// POST /v1/chat/completions → an SSE stream of `text_bytes` bytes of content in 32-byte deltas,
// written as fast as the client reads, then finish_reason "stop" and [DONE]. Serves requests one
// after another until it goes away.
class FastModel {
public:
  explicit FastModel(std::size_t text_bytes);
  ~FastModel();
  FastModel(const FastModel&) = delete;
  FastModel& operator=(const FastModel&) = delete;
  std::string endpoint() const; // http://127.0.0.1:PORT/v1
  bool finished() const { return finished_.load(); } // one stream was written to its end

private:
  void serve();
  std::size_t text_bytes_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false}, finished_{false};
  std::thread thread_;
};

} // namespace mur::test
