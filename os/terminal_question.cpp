#include "os/terminal_question.hpp"

#include "os/unique_fd.hpp"

#include <atomic>
#include <cerrno>
#include <thread>

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

namespace mur {
namespace {

constexpr std::size_t max_line = 64 * 1024;
std::atomic<bool> reading{false}; // one reader of the terminal at a time

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// One line from `fd` (without its newline); false when input ended before any of it.
bool read_line(int fd, std::string& line) {
  char c;
  for (;;) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return !line.empty();
    if (c == '\n') return true;
    if (line.size() < max_line) line.push_back(c);
  }
}

} // namespace

bool ask_at_terminal(const std::string& prompt, std::function<void(std::string)> on_line) {
  UniqueFd tty(::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
  // Only the terminal's foreground: a background process that reads it is stopped (SIGTTIN).
  if (!tty.valid() || ::tcgetpgrp(tty.get()) != ::getpgrp()) return false;
  bool expected = false;
  if (!reading.compare_exchange_strong(expected, true)) return true; // a reader waits already
  std::thread([fd = std::move(tty), prompt, on_line = std::move(on_line)]() mutable {
    write_all(fd.get(), prompt);
    std::string line;
    const bool got = read_line(fd.get(), line);
    reading = false;
    if (got) on_line(std::move(line));
  }).detach();
  return true;
}

} // namespace mur
