#include "os/pid_wait.hpp"

#include "os/unique_fd.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace mur {

namespace {
UniqueFd pidfd_of(pid_t pid) { return UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))); }
} // namespace

bool wait_pid_gone(pid_t pid, std::chrono::milliseconds bound) { return wait_pids_gone({pid}, bound); }

bool wait_pids_gone(const std::vector<pid_t>& pids, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  for (pid_t pid : pids) {
    UniqueFd fd = pidfd_of(pid);
    if (fd.get() < 0) {
      if (errno == ESRCH) continue;
      return false;
    }
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      pollfd p{fd.get(), POLLIN, 0};
      int rc = ::poll(&p, 1, left.count() > 0 ? static_cast<int>(left.count()) : 0);
      if (rc < 0 && errno == EINTR) continue;
      if (rc <= 0) return false;
      break;
    }
  }
  return true;
}

} // namespace mur
