// raw_http.cpp — see raw_http.hpp.
#include "raw_http.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace mur::test {

RawConn::RawConn(int port, int rcvbuf) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("socket: " + std::to_string(errno));
  if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) closed_ = true;
}

RawConn::~RawConn() {
  if (fd_ >= 0) ::close(fd_);
}

RawConn::RawConn(RawConn&& o) noexcept : fd_(o.fd_), closed_(o.closed_), got_(std::move(o.got_)) { o.fd_ = -1; }

void RawConn::send(const std::string& bytes) {
  std::size_t off = 0;
  while (off < bytes.size() && !closed_) {
    const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      closed_ = true;
      return;
    }
    off += static_cast<std::size_t>(n);
  }
}

bool RawConn::read_once(int timeout_ms) {
  if (closed_) return true;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return false;
  char buf[65536];
  const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) closed_ = true;
  else got_.append(buf, static_cast<std::size_t>(n));
  return true;
}

namespace {
using steady = std::chrono::steady_clock;
int left_ms(steady::time_point end) {
  return static_cast<int>(std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(end - steady::now()).count()));
}
} // namespace

bool RawConn::closed_within(std::chrono::milliseconds bound) {
  const auto end = steady::now() + bound;
  do {
    if (!read_once(left_ms(end))) break; // nothing came within what was left
  } while (!closed_ && left_ms(end) > 0);
  return closed_;
}

std::string RawConn::read_until(const std::string& marker, std::chrono::milliseconds bound) {
  const auto end = steady::now() + bound;
  while (!closed_ && got_.find(marker) == std::string::npos && left_ms(end) > 0) read_once(left_ms(end));
  return got_;
}

std::string RawConn::read_to_close(std::chrono::milliseconds bound) {
  closed_within(bound);
  return got_;
}

std::size_t count_closed(std::vector<RawConn>& conns, std::size_t expected, std::chrono::milliseconds bound) {
  const auto end = steady::now() + bound;
  std::size_t closed = 0;
  for (;;) {
    std::vector<pollfd> ps;
    std::vector<RawConn*> open;
    closed = 0;
    for (auto& c : conns) {
      if (c.closed()) {
        ++closed;
        continue;
      }
      ps.push_back(pollfd{c.fd(), POLLIN, 0});
      open.push_back(&c);
    }
    if (closed >= expected || left_ms(end) == 0 || ps.empty()) return closed;
    if (::poll(ps.data(), ps.size(), std::min(left_ms(end), 200)) <= 0) continue;
    for (std::size_t i = 0; i < ps.size(); ++i)
      if (ps[i].revents) open[i]->closed_within(std::chrono::milliseconds(0));
  }
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

bool wait_listening(int port, std::chrono::milliseconds bound) {
  const auto end = steady::now() + bound;
  while (steady::now() < end) {
    RawConn c(port);
    if (!c.closed()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::size_t rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  return 0;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

FastModel::FastModel(std::size_t text_bytes) : text_bytes_(text_bytes) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("FastModel: cannot listen");
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this] { serve(); });
}

FastModel::~FastModel() {
  stop_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
}

std::string FastModel::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

void FastModel::serve() {
  const std::string delta = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fast\",\"choices\":[{\"index\":0,"
                            "\"delta\":{\"content\":\"abcdefghijklmnopqrstuvwxyz012345\"},\"finish_reason\":null}]}\n\n";
  std::string batch;
  for (int i = 0; i < 256; ++i) batch += delta;
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    // The request: its headers, then as many body bytes as Content-Length says.
    std::string req;
    char buf[65536];
    std::size_t need = std::string::npos;
    while (!stop_) {
      pollfd q{c, POLLIN, 0};
      if (::poll(&q, 1, 5000) <= 0) break;
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      req.append(buf, static_cast<std::size_t>(n));
      const auto end = req.find("\r\n\r\n");
      if (end != std::string::npos && need == std::string::npos) {
        auto cl = req.find("Content-Length: ");
        if (cl == std::string::npos) cl = req.find("content-length: ");
        need = end + 4 + (cl == std::string::npos ? 0 : std::stoul(req.substr(cl + 16)));
      }
      if (need != std::string::npos && req.size() >= need) break;
    }
    auto write_all = [c](const std::string& s) {
      std::size_t off = 0;
      while (off < s.size()) {
        const ssize_t n = ::send(c, s.data() + off, s.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return false;
        off += static_cast<std::size_t>(n);
      }
      return true;
    };
    bool ok = write_all("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n");
    for (std::size_t sent = 0; ok && !stop_ && sent < text_bytes_; sent += 256 * 32) ok = write_all(batch);
    ok = ok && write_all("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fast\",\"choices\":[{\"index\":0,"
                         "\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    if (ok) finished_ = true;
    ::close(c);
  }
}

} // namespace mur::test
