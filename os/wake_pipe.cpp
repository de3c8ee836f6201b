#include "os/wake_pipe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace mur {

WakePipe::WakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  read_.reset(fds[0]);
  write_.reset(fds[1]);
}

void WakePipe::wake() noexcept {
  const char byte = 1;
  ssize_t n;
  do {
    n = ::write(write_.get(), &byte, 1);
  } while (n < 0 && errno == EINTR);
  // EAGAIN: the pipe is full, so it is already readable.
}

} // namespace mur
