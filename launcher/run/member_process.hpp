// member_process.hpp — one started member process as the launcher sees it, and the thread that
// reads its output and reaps it.
//
// Invariant: each member has exactly one reader thread; it reads the member's stdout and stderr
// until both reach EOF (poll), then waits for the process to end without reaping it (a pidfd,
// then waitid WNOWAIT), and reaps it under the same lock `kill_now` takes — so a SIGKILL is never
// sent to a pid that was already reaped and might be reused. A peer that closes its stdout but
// has not ended 2 s later is killed (the poll's timeout, no sleep). Its first stdout line is its
// readiness line; the stderr tail (last 20 lines) is kept for E-RUN-045.
// Rule: each member is a `mur run` process of its own and ends when its formation does
// (docs/spec/formation.md §Launch, §How a formation ends).
#pragma once

#include "os/child_pid.hpp"
#include "os/line_tail.hpp"
#include "os/unique_fd.hpp"

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mur {

class MemberConsole;

// How long a peer may live on after closing its stdout (docs/spec/formation.md §Member output).
inline constexpr std::chrono::milliseconds STDOUT_CLOSED_GRACE{2'000};

struct MemberProcess {
  std::string name;
  bool entry = false;
  ChildPid pid; // a peer leads its own process group (pgid == pid)

  // SIGKILL: a peer's whole group, the entry's pid only. Nothing once it was reaped.
  void kill_now();
  bool reaped() const { return pid.reaped(); }
  // Whether it was killed because it closed its stdout and did not end within 2 s.
  bool killed_for_closed_stdout() const { return stdout_kill_; }
  std::string stderr_tail() const { return tail.quoted("    "); } // "\n    | line" per kept line

  std::atomic<bool> stdout_kill_{false};
  LineTail tail{20};
};

struct MemberOutputHandlers {
  std::function<void(const std::string& line)> ready_line; // the first stdout line
  std::function<void(int exit_code)> exited;               // 128+N when killed by signal N
};

// Every member's reader thread; joined by its owner once every member was reaped.
class MemberProcesses {
public:
  ~MemberProcesses();
  // Starts the reader thread of `p`, which owns `out` and `err` (the read ends of its stdout/stderr).
  void watch(const std::shared_ptr<MemberProcess>& p, UniqueFd out, UniqueFd err,
             std::shared_ptr<MemberConsole> console, MemberOutputHandlers handlers);
  // Writes `text` to `in` (a member's stdin) on a thread of its own, then closes it: a member
  // that reads slowly never holds up the launcher, one that is gone fails the write (EPIPE).
  void feed(UniqueFd in, std::string text);
  // The safety net: SIGKILL every member not yet reaped.
  void kill_all();
  // Waits for every reader and feeding thread (each ends once its member was reaped).
  void join_all();
  std::vector<std::shared_ptr<MemberProcess>> all() const;

private:
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<MemberProcess>> procs_;
  std::vector<std::thread> threads_;
};

} // namespace mur
