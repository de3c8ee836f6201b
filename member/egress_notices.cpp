// egress_notices.cpp — see egress_notices.hpp.
#include "member/egress_notices.hpp"

#include "messages/wire/trace_event.hpp"
#include "os/member_pipes.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace mur {
namespace {

void trace_line(const trace_port& trace, const std::string& line) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return;
  auto text = [&](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>().substr(0, 255) : std::string();
  };
  const auto port = j.find("port");
  const auto tls = j.find("tls");
  nlohmann::json fields{{"program", text("program")}, {"host", text("host")},
                        {"port", port != j.end() && port->is_number_integer() ? port->get<int>() : 0},
                        {"tls", tls != j.end() && tls->is_boolean() && tls->get<bool>()}, {"why", text("why")}};
  caf::anon_send(trace, TraceEvent{"egress_refused", fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
}

} // namespace

EgressNotices::EgressNotices(trace_port trace) {
  PipeEnds p = make_pipe();
  read_ = std::move(p.read);
  write_ = std::move(p.write);
  reader_ = std::thread([this, trace] {
    std::string pending;
    char buf[4096];
    for (;;) {
      pollfd fds[2] = {{read_.get(), POLLIN, 0}, {stop_.fd(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents & POLLIN) return;
      const ssize_t n = ::read(read_.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      pending.append(buf, std::size_t(n));
      for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
        trace_line(trace, pending.substr(0, nl));
        pending.erase(0, nl + 1);
      }
      if (pending.size() > 64 * 1024) pending.clear(); // no line is that long
    }
  });
}

EgressNotices::~EgressNotices() {
  stop_.wake();
  if (reader_.joinable()) reader_.join();
}

} // namespace mur
