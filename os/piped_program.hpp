// piped_program.hpp — starting a program with its stdin, stdout and stderr on pipes and a pidfd
// to wait on: what the adapters that speak to a child of the member share (an agent program's
// turn, os/harness_run; a stdio tool server, os/stdio_process).
//
// Invariant: start_piped either returns a started child with the caller's three pipe ends
// (non-blocking, close-on-exec) and its pidfd, the child's ends already closed here, or throws
// with nothing left running (a child started but not waitable is killed and reaped first).
// The child gets exactly the environment, working directory and isolation plan given. Reading
// and waiting are events (poll on the descriptors and the pidfd), never a polling timer.
// Rule: docs/spec/choices.md §Agent programs and §Tool servers (each program runs under the
// member's isolation with only the environment the capsule declared).
#pragma once

#include "os/child_pid.hpp"
#include "os/harness_isolation.hpp"
#include "os/read_now.hpp" // what every user of a piped program reads with
#include "os/unique_fd.hpp"

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <thread>
#include <vector>

namespace mur {

// What to start.
struct ProgramStart {
  std::string program;           // an absolute path
  std::vector<std::string> argv; // argv[0] included
  std::vector<std::string> env;  // the whole environment
  std::string cwd;
  IsolationPlan isolation;       // applied to the child (os/harness_isolation.hpp)
};

// How it ended.
struct ProgramEnd {
  bool started = true;
  std::string start_error; // when not started
  int exit_status = -1;    // when it exited
  int signal = 0;          // when a signal ended it
  std::string err_tail;    // the last bytes of stderr
};

struct PipedProgram {
  pid_t pid = -1;
  UniqueFd in;    // its stdin (write end)
  UniqueFd out;   // its stdout (read end)
  UniqueFd err;   // its stderr (read end)
  UniqueFd pidfd; // readable once it exited
};

// Starts `start`, in its own process group when `own_group` (else in the caller's). Throws
// std::system_error or Failure (E-ISO-001).
PipedProgram start_piped(const ProgramStart& start, bool own_group);

// Reaps the exited child `pid` into `end` (exit_status or signal), under its lock.
void reap_into(ChildPid& pid, ProgramEnd& end);

// Keeps the last `cap` bytes of what reached it.
void keep_tail(std::string& tail, const char* data, std::size_t n, std::size_t cap);

// Blocks SIGPIPE on the calling thread: a child that closed its stdin fails the write (EPIPE),
// never the process (a test binary, too, does not ignore SIGPIPE); a pending one dies with the
// thread.
void block_sigpipe_here();

// Runs `body` (it may hold move-only descriptors) on a new thread on which SIGPIPE is blocked.
template <class Body>
std::thread thread_without_sigpipe(Body body) {
  return std::thread([body = std::move(body)]() mutable {
    block_sigpipe_here();
    body();
  });
}

// The end of a program that could not start, reported on a thread of its own as a started
// one's would be (the caller is never called back from inside its own constructor).
template <class End, class OnEnd>
std::thread report_not_started(OnEnd on_end, const std::exception& why) {
  End end;
  end.started = false;
  end.start_error = why.what();
  return std::thread([on_end = std::move(on_end), end]() mutable { on_end(std::move(end)); });
}

// Starts `impl.start` and runs `impl.run(child)` on a thread of its own without SIGPIPE (only
// that thread writes to the child); a start that fails marks `impl.ended` and reports the
// not-started `End` to `impl.on_end` on that thread instead. `Impl` holds start, pid (a ChildPid), ended,
// thread, on_end and run(PipedProgram).
template <class End, class Impl>
void start_on_thread(Impl& impl, bool own_group) {
  try {
    PipedProgram child = start_piped(impl.start, own_group);
    impl.pid.set(child.pid);
    impl.thread = thread_without_sigpipe([&impl, child = std::move(child)]() mutable { impl.run(std::move(child)); });
  } catch (const std::exception& ex) {
    if (impl.pid.get() > 0) { // started, but its thread could not be
      impl.pid.kill(own_group ? ChildPid::Target::group : ChildPid::Target::process);
      impl.pid.reap();
    }
    impl.ended = true;
    impl.thread = report_not_started<End>(std::move(impl.on_end), ex);
  }
}

} // namespace mur
