// child_pid.hpp — a started child's pid with the one lock that every signal to it and its
// reaping take (a member process as the launcher sees it, a delegated child as its parent does,
// an agent program's turn and a stdio tool server as their member does).
//
// Invariant: no signal is sent before the pid is set or once the child was reaped (a reaped pid
// may already name another process); reap() waits for the end without reaping (waitid WNOWAIT)
// and then reaps under the lock, so a kill racing the end either reaches the child or nothing.
// Rule: each program mur starts ends with whatever started it, and nothing else is ever signalled
// (docs/spec/formation.md §How a formation ends).
#pragma once

#include <sys/types.h>

#include <mutex>

namespace mur {

class ChildPid {
public:
  enum class Target { process, group };

  void set(pid_t pid); // once it was started
  void never_started(); // nothing to reap, nothing to kill
  pid_t get() const;
  bool reaped() const;
  // SIGKILL to the process or its whole group (it leads one); nothing before set or once reaped.
  void kill(Target target);
  // Waits for it to end and reaps it: its exit code, 128+N when signal N ended it, 1 when it
  // could not be reaped.
  int reap();
  // The same, as waitpid's status (-1 when it could not be reaped).
  int reap_status();

private:
  mutable std::mutex mu_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

} // namespace mur
