// harness_run.hpp — one run of an agent program for one model turn: started in its own process
// group with its stdin, stdout and stderr on pipes; the turn's JSON written to stdin, which is
// then closed; stdout kept up to a cap (the rest read and dropped, so the program never blocks
// on a full pipe); the tail of stderr kept; its end reported once.
//
// Invariant: exactly one `on_end` per run (the program exited, was killed, or could not start);
// `kill()` and the destructor end the whole process group with SIGKILL, so nothing the program
// started outlives its turn; the run's thread waits on descriptors and the pidfd (events, no
// polling timer). Nothing here prints or logs what the program wrote.
// Rule (docs/spec/decisions.md §Agent programs): a new process per turn, in its own process
// group, ended with the turn, the member and the formation.
#pragma once

#include "os/harness_isolation.hpp"

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mur {

struct HarnessStart {
  std::string program;           // an absolute path
  std::vector<std::string> argv; // argv[0] included
  std::vector<std::string> env;  // the whole environment
  std::string cwd;
  std::string stdin_text;
  std::size_t stdout_cap = 64 * 1024;
  std::size_t stderr_tail = 4 * 1024;
  IsolationPlan isolation;       // applied to the child (os/harness_isolation.hpp)
};

struct HarnessEnd {
  bool started = true;
  std::string start_error;      // when not started
  int exit_status = -1;         // when it exited
  int signal = 0;               // when a signal ended it
  std::string out;              // stdout, up to the cap
  bool cut = false;             // stdout passed the cap
  std::string err_tail;         // the last bytes of stderr
};

class HarnessRun {
public:
  // Starts the program. `on_output` is told (at most every 250 ms) that it wrote something;
  // `on_end` once. Both run on the run's own thread and must only hand work on.
  HarnessRun(HarnessStart start, std::function<void()> on_output, std::function<void(HarnessEnd)> on_end);
  ~HarnessRun(); // kills the group if it still runs, then joins the thread
  HarnessRun(const HarnessRun&) = delete;
  HarnessRun& operator=(const HarnessRun&) = delete;

  void kill(); // SIGKILL to the process group (no effect once it ended)
  pid_t pid() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mur
