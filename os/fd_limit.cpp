// fd_limit.cpp — see fd_limit.hpp.
#include "os/fd_limit.hpp"

#include <sys/resource.h>

namespace mur {

std::uint64_t open_file_limit() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024; // the usual default, when unreadable
  return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(rl.rlim_cur);
}

std::uint64_t raise_open_file_limit() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur != rl.rlim_max) {
    struct rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) != 0) {
      // Some systems refuse RLIM_INFINITY for descriptors: take the kernel's nr_open instead.
      raised.rlim_cur = 1u << 20;
      if (raised.rlim_cur < rl.rlim_cur || ::setrlimit(RLIMIT_NOFILE, &raised) != 0) return open_file_limit();
    }
  }
  return open_file_limit();
}

} // namespace mur
