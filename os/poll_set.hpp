// poll_set.hpp — the descriptors one poll(2) round waits on, each added only while it is wanted
// (a child's pipes while open, its pidfd until it exited, a wake pipe).
//
// Invariant: a slot that was not added (-1) reads as no events, so a caller asks each of its
// descriptors the same way whether or not it took part in this round. At most 8 descriptors.
#pragma once

#include <poll.h>

#include <array>
#include <cassert>

namespace mur {

class PollSet {
public:
  // Adds `fd` for `events` when `wanted`; its slot, -1 when it was not added.
  int add(bool wanted, int fd, short events = POLLIN) {
    if (!wanted) return -1;
    assert(n_ < fds_.size());
    fds_[n_] = pollfd{fd, events, 0};
    return static_cast<int>(n_++);
  }
  // poll(2) over what was added; its result (-1 with errno set on an error, EINTR included).
  int wait(int timeout_ms) { return ::poll(fds_.data(), n_, timeout_ms); }
  // What the round reported for `slot` (0 for -1).
  short events(int slot) const { return slot < 0 ? 0 : fds_[static_cast<nfds_t>(slot)].revents; }

private:
  std::array<pollfd, 8> fds_{};
  nfds_t n_ = 0;
};

} // namespace mur
