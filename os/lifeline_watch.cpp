#include "os/lifeline_watch.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace mur {

LifelineWatch::LifelineWatch(UniqueFd fd, std::function<void()> on_ended)
  : fd_(std::move(fd)), on_ended_(std::move(on_ended)) {
  thread_ = std::thread([this] { run(); });
}

LifelineWatch::~LifelineWatch() { stop(); }

void LifelineWatch::stop() {
  wake_.wake();
  if (thread_.joinable()) thread_.join();
}

void LifelineWatch::run() {
  char scratch[512];
  for (;;) {
    pollfd fds[2] = {{fd_.get(), POLLIN, 0}, {wake_.fd(), POLLIN, 0}};
    int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break; // cannot watch any more: treat as ended
    }
    if (fds[1].revents != 0) return; // stopped: report nothing
    if (fds[0].revents == 0) continue;
    if (fds[0].revents & POLLNVAL) break;
    ssize_t n = ::read(fd_.get(), scratch, sizeof scratch);
    if (n > 0) continue; // the launcher never writes: discard
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    break; // EOF, or a read error
  }
  if (on_ended_) on_ended_();
}

} // namespace mur
