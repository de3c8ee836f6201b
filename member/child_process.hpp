// child_process.hpp — one delegated child process as its parent's process sees it, and the
// thread per child that starts it, reads its output and reaps it.
//
// Invariant: each child has exactly one thread. It runs the launch's `prepare` first (resolving
// the capsule, making its directory: blocking work kept off the actors), then — unless the child
// was abandoned meanwhile — posix_spawns it in its own process group with the spawner lifeline's
// read end as its only inherited descriptor and the grant pipe as its stdin, writes the grant line
// there and closes it (the grant's bytes are wiped), reads stdout (the first line is reported;
// later lines are dropped) and stderr (the last lines kept, any line naming a door url left out)
// until the process ends (its pidfd, an event: no sleep-polling), and reaps it under the same
// lock `kill_group` takes, so no SIGKILL ever reaches a reaped (reusable) pid. The spawner
// lifeline's write end lives here too, and only this process holds it (close-on-exec): closing
// it, or this process dying, is what ends the child. Nothing here prints.
// Rule: a delegated child lives no longer than its parent member, whose process alone holds the
// child's spawner lifeline (docs/spec/choices.md §Sub-capsules; docs/spec/door.md §The lifeline).
#pragma once

#include "os/child_pid.hpp"
#include "os/line_tail.hpp"
#include "messages/credentials/spawn_grant.hpp"
#include "os/unique_fd.hpp"

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mur {

struct ChildLaunch {
  // Runs first, on the thread: "" ⇒ go on (it may complete argv); else why the child cannot start.
  std::function<std::string(ChildLaunch&)> prepare;
  std::string program;
  std::vector<std::string> argv;        // argv[0] included; never a secret
  std::vector<std::string> env;         // the whole environment; never a secret
  std::string cwd;
  UniqueFd lifeline_read;               // inherited at fd 3
  GrantLine grant = GrantLine::adopt(""); // written to its stdin, then wiped
};

struct ChildEvents {
  std::function<void(pid_t)> spawned;
  std::function<void(const std::string& line)> first_line;
  // Once, at the very end: the exit code (128+N for signal N; -1 when it never started) and,
  // when it never started, why.
  std::function<void(int code, const std::string& failure)> ended;
};

class ChildProcess {
public:
  explicit ChildProcess(UniqueFd lifeline_write);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Closes the spawner lifeline's write end (the child sees EOF); a child not yet started will
  // not be. Idempotent.
  void close_lifeline();
  // SIGKILL to its whole process group, unless it was reaped (or never started).
  void kill_group() { pid_.kill(ChildPid::Target::group); }
  bool reaped() const { return pid_.reaped(); }
  pid_t pid() const { return pid_.get(); }
  // The last stderr lines, "\n  | line" each (no line holding a url).
  std::string stderr_tail() const;

  // The thread's work (see the invariant). Called once, by ChildProcesses::start.
  void run(ChildLaunch launch, const ChildEvents& events);

private:
  ChildPid pid_;
  std::mutex mu_; // abandoned_ and lifeline_write_; held while it is started
  bool abandoned_ = false;
  UniqueFd lifeline_write_;
  LineTail tail_{20};
  friend struct ChildOutput;
};

// Every child's thread, joined at the end.
class ChildProcesses {
public:
  ChildProcesses() = default;
  ChildProcesses(const ChildProcesses&) = delete;
  ChildProcesses& operator=(const ChildProcesses&) = delete;
  ~ChildProcesses(); // end_all(0): closes, kills and joins

  void start(const std::shared_ptr<ChildProcess>& child, ChildLaunch launch, ChildEvents events);
  // Every child's lifeline closed (the port ended); nothing waited for.
  void close_all();
  // The session's end: every lifeline closed; children not gone within `grace` are SIGKILLed
  // (their groups); every thread joined (each reaped its child).
  void end_all(std::chrono::milliseconds grace);

private:
  std::mutex mu_;
  std::vector<std::shared_ptr<ChildProcess>> children_;
  std::vector<std::thread> threads_;
};

} // namespace mur
