// child_pid.cpp — see child_pid.hpp.
#include "os/child_pid.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>

namespace mur {

void ChildPid::set(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  pid_ = pid;
}

void ChildPid::never_started() {
  std::lock_guard<std::mutex> lock(mu_);
  reaped_ = true;
}

pid_t ChildPid::get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pid_;
}

bool ChildPid::reaped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reaped_;
}

void ChildPid::kill(Target target) {
  std::lock_guard<std::mutex> lock(mu_);
  if (reaped_ || pid_ <= 0) return;
  ::kill(target == Target::group ? -pid_ : pid_, SIGKILL);
}

int ChildPid::reap() {
  const int status = reap_status();
  if (status < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int ChildPid::reap_status() {
  const pid_t pid = get();
  siginfo_t si{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  std::lock_guard<std::mutex> lock(mu_);
  int status = 0;
  pid_t r;
  while ((r = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  return r < 0 ? -1 : status;
}

} // namespace mur
