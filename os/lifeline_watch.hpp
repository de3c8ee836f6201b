// lifeline_watch.hpp — the member side of the lifeline: a thread that notices the launcher is gone.
//
// Invariant: one thread blocks on the lifeline's read end (the only write end is the launcher's,
// which never writes): stray bytes are discarded, EINTR is retried, and EOF or any other read
// error is reported exactly once through `on_ended` — whatever ended the launcher, even SIGKILL.
// `stop()` (or destruction) ends the thread without reporting.
// Rule (docs/spec/door.md §The lifeline): end of file means the formation ended — closed on
// purpose, or the launcher died, even by SIGKILL.
#pragma once

#include <functional>
#include <thread>

#include "os/unique_fd.hpp"
#include "os/wake_pipe.hpp"

namespace mur {

class LifelineWatch {
public:
  // Takes ownership of `fd` (a validated lifeline read end) and starts watching at once.
  // `on_ended` runs on the watch thread; it must not call stop() or destroy this object.
  LifelineWatch(UniqueFd fd, std::function<void()> on_ended);
  ~LifelineWatch();
  LifelineWatch(const LifelineWatch&) = delete;
  LifelineWatch& operator=(const LifelineWatch&) = delete;

  void stop();

private:
  void run();

  UniqueFd fd_;
  std::function<void()> on_ended_;
  WakePipe wake_;
  std::thread thread_;
};

} // namespace mur
