// wake_pipe.hpp — a self-pipe that wakes a thread blocked in poll() so it can stop cleanly.
//
// Invariant: both ends are close-on-exec and non-blocking; once `wake()` has been called the
// read end stays readable for good, so a thread that polls it can never miss the request.
// Rule (docs/ARCHITECTURE.md §Process hygiene): a member notices EOF promptly — a blocking reader
// thread, not a poll timer — and a blocking thread still needs a way to be told to stop.
#pragma once

#include "os/unique_fd.hpp"

namespace mur {

class WakePipe {
public:
  WakePipe(); // throws std::system_error
  // Async-signal-safe and idempotent.
  void wake() noexcept;
  // The end to poll for POLLIN.
  int fd() const noexcept { return read_.get(); }

private:
  UniqueFd read_;
  UniqueFd write_;
};

} // namespace mur
