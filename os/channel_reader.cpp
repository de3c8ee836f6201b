#include "os/channel_reader.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

namespace mur {
namespace {

// "10 s" for whole seconds, "200 ms" otherwise.
std::string wait_text(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

} // namespace

ChannelReader::ChannelReader(UniqueFd fd, Handlers handlers,
                             std::chrono::milliseconds first_line_deadline)
  : fd_(std::move(fd)), handlers_(std::move(handlers)), first_line_wait_(first_line_deadline),
    deadline_(std::chrono::steady_clock::now() + first_line_deadline) {
  thread_ = std::thread([this] { run(); });
}

ChannelReader::~ChannelReader() { stop(); }

void ChannelReader::stop() {
  wake_.wake();
  if (thread_.joinable()) thread_.join();
}

void ChannelReader::fail(const std::string& reason) {
  if (handlers_.failed)
    handlers_.failed(Failure("E-RUN-046", "the formation channel was unreadable: " + reason,
                             "start formation members only with `mur run --roster`"));
}

bool ChannelReader::deliver(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (auto problem = channel_line_problem(line)) {
    if (!have_first_) {
      fail("its first line was refused: " + *problem);
      return false;
    }
    if (handlers_.bad_line) handlers_.bad_line(*problem);
    return true;
  }
  if (!have_first_) {
    have_first_ = true;
    if (handlers_.first_line) handlers_.first_line(std::move(line));
  } else if (handlers_.line) {
    handlers_.line(std::move(line));
  }
  return true;
}

void ChannelReader::run() {
  std::string pending;
  bool discarding = false; // inside an oversized later line, until its `\n`
  std::vector<char> chunk(64 * 1024);
  for (;;) {
    int timeout = -1;
    if (!have_first_) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) return fail("no first line arrived within " + wait_text(first_line_wait_));
      timeout = int(std::min<long long>(left.count() + 1, 1 << 30));
    }
    pollfd fds[2] = {{fd_.get(), POLLIN, 0}, {wake_.fd(), POLLIN, 0}};
    int ready = ::poll(fds, 2, timeout);
    if (ready < 0 && errno != EINTR) {
      if (!have_first_) return fail("it could not be waited on");
      if (handlers_.closed) handlers_.closed();
      return;
    }
    if (ready <= 0) continue; // EINTR or the deadline: re-checked above
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;

    ssize_t n = ::read(fd_.get(), chunk.data(), chunk.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) { // EOF or a read error; an unterminated last line is dropped
      if (!have_first_) return fail(n == 0 ? "it closed before its first line" : "a read failed");
      if (handlers_.closed) handlers_.closed();
      return;
    }
    std::size_t scan_from = pending.size();
    pending.append(chunk.data(), std::size_t(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', scan_from)) != std::string::npos;) {
      std::string line = pending.substr(start, nl - start);
      start = scan_from = nl + 1;
      if (discarding) {
        discarding = false;
        continue;
      }
      if (!deliver(std::move(line))) return;
    }
    pending.erase(0, start);
    if (discarding) {
      pending.clear();
    } else if (pending.size() > FORMATION_CHANNEL_LINE_MAX + 1) { // + a possible `\r`
      if (!have_first_) return fail("its first line was refused: the line is longer than 1 MiB");
      if (handlers_.bad_line) handlers_.bad_line("the line is longer than 1 MiB");
      pending.clear();
      discarding = true;
    }
  }
}

} // namespace mur
