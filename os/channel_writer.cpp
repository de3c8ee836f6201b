#include "os/channel_writer.hpp"

#include <pthread.h>
#include <sodium.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

namespace mur {

namespace {

// SIGPIPE is blocked on this thread while writing; one raised by our own write is consumed
// before the mask is restored, so it is never delivered even where SIGPIPE is not ignored.
class SigpipeGuard {
public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  void consume_own() {
    if (was_pending_) return;
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  ~SigpipeGuard() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
};

} // namespace

namespace {
// The line may carry tokens: its copy is wiped once written.
struct WipedBuffer {
  std::string text;
  ~WipedBuffer() {
    if (!text.empty()) sodium_memzero(text.data(), text.size());
  }
};
} // namespace

bool write_channel_line(int fd, std::string_view line) {
  if (line.find('\n') != std::string_view::npos)
    throw std::invalid_argument("a formation channel line cannot contain a newline");
  WipedBuffer wiped;
  std::string& buf = wiped.text;
  buf.reserve(line.size() + 1);
  buf.append(line).push_back('\n');
  SigpipeGuard guard;
  std::size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::write(fd, buf.data() + done, buf.size() - done);
    if (n > 0) {
      done += std::size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) guard.consume_own();
    return false;
  }
  return true;
}

} // namespace mur
