// egress_gate.cpp — see egress_gate.hpp.
#include "os/egress_gate.hpp"

#include "messages/credentials/egress_grant.hpp"

#include <arpa/inet.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

namespace mur {
namespace {

constexpr std::size_t head_cap = 16 * 1024;
constexpr int head_wait_ms = 30000;

int listen_on(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  const int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 64) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

bool write_all(int fd, const std::string& data) {
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

[[noreturn]] void answer(int client, int status, const char* reason, const std::string& code, const std::string& message,
                         const std::string& host, int port) {
  const std::string body =
    nlohmann::json{{"error", {{"code", code}, {"message", message}, {"host", host}, {"port", port}}}}.dump() + "\n";
  write_all(client, "HTTP/1.1 " + std::to_string(status) + " " + reason +
                      "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body);
  ::close(client);
  _exit(0);
}

// A connection to host:port of the machine's network, or -1 (errno set).
int connect_to(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) {
    errno = EHOSTUNREACH;
    return -1;
  }
  int s = -1;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    s = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (s < 0) continue;
    if (::connect(s, a->ai_addr, a->ai_addrlen) == 0) break;
    const int e = errno;
    ::close(s);
    s = -1;
    errno = e;
  }
  ::freeaddrinfo(found);
  return s;
}

// Bytes both ways until both sides have closed (a side's end is passed on as a half-close).
[[noreturn]] void relay(int a, int b) {
  char buf[65536];
  bool a_open = true, b_open = true;
  while (a_open || b_open) {
    pollfd p[2] = {{a, static_cast<short>(a_open ? POLLIN : 0), 0}, {b, static_cast<short>(b_open ? POLLIN : 0), 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      const int from = i == 0 ? a : b, to = i == 0 ? b : a;
      bool& open = i == 0 ? a_open : b_open;
      if (!open || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(from, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || !write_all(to, std::string(buf, std::size_t(n)))) {
        open = false;
        ::shutdown(to, SHUT_WR);
      }
    }
  }
  _exit(0);
}

// "host:port" or "[v6]:port" (default `port` when none is given).
void split_authority(const std::string& text, std::string& host, int& port) {
  std::string p;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    host = text.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    if (close != std::string::npos && close + 1 < text.size() && text[close + 1] == ':') p = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    host = text.substr(0, colon);
    if (colon != std::string::npos) p = text.substr(colon + 1);
  }
  if (!p.empty()) port = p.size() <= 5 && std::all_of(p.begin(), p.end(), [](unsigned char c) { return std::isdigit(c) != 0; }) ? std::stoi(p) : -1;
}

} // namespace

bool open_gate(const std::vector<int>& forward_ports, GateListeners& out, std::string& why) {
  const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  const bool up = s >= 0 && ::ioctl(s, SIOCGIFFLAGS, &ifr) == 0 &&
                  (ifr.ifr_flags |= IFF_UP | IFF_RUNNING, ::ioctl(s, SIOCSIFFLAGS, &ifr) == 0);
  const int err = errno;
  if (s >= 0) ::close(s);
  if (!up) {
    why = std::string("bringing up its loopback: ") + std::strerror(err);
    return false;
  }
  out.proxy = listen_on(egress_proxy_port);
  if (out.proxy < 0) {
    why = std::string("listening at the proxy's port: ") + std::strerror(errno);
    return false;
  }
  for (int port : forward_ports) {
    const int l = listen_on(port);
    if (l < 0) {
      why = "listening at the forwarded port " + std::to_string(port) + ": " + std::strerror(errno);
      return false;
    }
    out.forward_fds.push_back(l);
  }
  return true;
}

bool send_fds(int sock, const std::vector<int>& fds) {
  char byte = 'g';
  iovec iov{&byte, 1};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  return ::sendmsg(sock, &msg, 0) == 1;
}

std::vector<int> receive_fds(int sock, std::size_t n) {
  std::vector<int> fds = receive_fds_up_to(sock, n);
  if (fds.size() == n) return fds;
  for (int fd : fds) ::close(fd);
  return {};
}

std::vector<int> receive_fds_up_to(int sock, std::size_t most) {
  char byte = 0;
  iovec iov{&byte, 1};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * most));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t got;
  while ((got = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  cmsghdr* c = got == 1 ? CMSG_FIRSTHDR(&msg) : nullptr;
  if (c == nullptr || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) return {};
  std::vector<int> fds((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
  std::memcpy(fds.data(), CMSG_DATA(c), sizeof(int) * fds.size());
  if (msg.msg_flags & MSG_CTRUNC) { // more than asked for: none is taken
    for (int fd : fds) ::close(fd);
    return {};
  }
  return fds;
}

ProxyRequest read_proxy_request(const std::string& head) {
  ProxyRequest r;
  const auto line_end = head.find("\r\n");
  const std::string line = head.substr(0, line_end);
  const auto sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (line_end == std::string::npos || sp1 == std::string::npos || sp2 == sp1) {
    r.problem = "the request line is not METHOD TARGET VERSION";
    return r;
  }
  const std::string method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1),
                    version = line.substr(sp2 + 1);
  std::string host, path = "/";
  int port = 0;
  r.tls = method == "CONNECT";
  if (r.tls) {
    split_authority(target, host, port);
  } else if (target.compare(0, 7, "http://") == 0) {
    const auto slash = target.find('/', 7);
    port = 80;
    split_authority(target.substr(7, slash == std::string::npos ? std::string::npos : slash - 7), host, port);
    if (slash != std::string::npos) path = target.substr(slash);
  } else {
    r.problem = "a proxy request names its target as http://host/path, or CONNECT host:port for TLS";
    return r;
  }
  if (host.empty() || port <= 0 || port > 65535) {
    r.problem = "the target has no host or no valid port";
    return r;
  }
  r.host = host;
  r.port = port;
  if (r.tls) return r;
  // The head as the server takes it: origin-form, without the proxy's own headers, and one
  // request to the connection (the bytes after it are relayed as they are, so a second
  // request in absolute-form must not follow on it).
  std::string out = method + " " + path + " " + version + "\r\n";
  for (std::size_t at = line_end + 2; at < head.size();) {
    const auto next = head.find("\r\n", at);
    const std::string h = head.substr(at, next == std::string::npos ? std::string::npos : next - at);
    at = next == std::string::npos ? head.size() : next + 2;
    std::string name = h.substr(0, h.find(':'));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (name.rfind("proxy-", 0) == 0 || name == "connection" || name == "keep-alive") continue;
    out += h + "\r\n";
  }
  r.head_out = out + "Connection: close\r\n\r\n";
  return r;
}

void serve_connection(int client, int forward_port, const std::vector<std::string>& allow,
                      const std::vector<int>& forward_ports, int notices, const std::string& label) {
  if (forward_port != 0) {
    const int up = connect_to("127.0.0.1", forward_port);
    if (up < 0) _exit(0);
    relay(client, up);
  }
  // The request head, bounded in size and time.
  std::string head;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(head_wait_ms);
  std::size_t end = std::string::npos;
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    if (head.size() > head_cap) answer(client, 400, "Bad Request", "E-NET-002", "the request head is over 16 KiB", "", 0);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{client, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
      answer(client, 408, "Request Timeout", "E-NET-002", "the request head did not come within 30 s", "", 0);
    char buf[4096];
    const ssize_t n = ::read(client, buf, sizeof buf);
    if (n <= 0) _exit(0);
    head.append(buf, std::size_t(n));
  }
  const std::string rest = head.substr(end + 4);
  head.resize(end + 2); // each line of the head ends with CRLF
  const ProxyRequest req = read_proxy_request(head);
  if (!req.problem.empty()) answer(client, 400, "Bad Request", "E-NET-002", req.problem, req.host, req.port);
  const std::string& host = req.host;
  const int port = req.port;
  const bool tls = req.tls;
  const bool own = (host == "127.0.0.1" || host == "localhost") &&
                   std::find(forward_ports.begin(), forward_ports.end(), port) != forward_ports.end();
  const EgressGrant grant = own ? EgressGrant{true, ""} : judge_egress(allow, host, port, tls);
  if (!grant.granted) {
    std::fprintf(stderr, "warning W-NET-002: refused %s:%d: %s\n", host.c_str(), port, grant.why.c_str());
    if (notices >= 0) { // one short line in one write: whole, never mixed with another refusal's
      const std::string line = nlohmann::json{{"program", label.substr(0, 200)}, {"host", host.substr(0, 255)},
                                              {"port", port}, {"tls", tls}, {"why", grant.why}}
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                               "\n";
      (void)!::write(notices, line.data(), line.size());
    }
    answer(client, 403, "Forbidden", "E-NET-001",
           host + ":" + std::to_string(port) + " is refused: " + grant.why +
             (grant.virtual_address ? std::string()
                                    : " (add it to capabilities.network.allow in the capsule's murmur.yaml)"),
           host, port);
  }
  const int up = connect_to(host, port);
  if (up < 0)
    answer(client, 502, "Bad Gateway", "E-NET-003",
           "cannot connect to " + host + ":" + std::to_string(port) + ": " + std::strerror(errno), host, port);
  if (tls ? !write_all(client, "HTTP/1.1 200 Connection established\r\n\r\n") : !write_all(up, req.head_out))
    _exit(0);
  if (!rest.empty() && !write_all(up, rest)) _exit(0);
  relay(client, up);
}

} // namespace mur
