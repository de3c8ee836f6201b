// read_now.hpp — reading what a non-blocking descriptor holds right now, without waiting.
//
// Invariant: every byte read reaches the sink in order, in chunks of at most 64 KiB; the call
// returns as soon as the descriptor has nothing more (EAGAIN, or EINTR: the caller polls again),
// or after 1 MiB (so one stream that floods never starves the others a caller polls), and
// reports its end (EOF or a hard error) as false. It never blocks on a non-blocking fd.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace mur {

// Makes `fd` non-blocking, as read_now needs it.
inline void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is there now into `sink(data, n)`; false at EOF or on an error other than EAGAIN.
template <class Sink>
bool read_now(int fd, Sink&& sink) {
  char buf[65536];
  for (int chunks = 0; chunks < 16; ++chunks) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      sink(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EINTR;
  }
  return true; // more may be there: the next poll says so
}

} // namespace mur
