// harness_run.hpp — one run of an agent program for one model turn: started in its own process
// group with its stdin, stdout and stderr on pipes; the turn's JSON written to stdin, which is
// then closed; stdout kept up to a cap (the rest read and dropped, so the program never blocks
// on a full pipe); the tail of stderr kept; its end reported once.
//
// Invariant: exactly one `on_end` per run (the program exited, was killed, or could not start);
// `kill()` and the destructor end the whole process group with SIGKILL, so nothing the program
// started outlives its turn; the run's thread waits on descriptors and the pidfd (events, no
// polling timer). Nothing here prints or logs what the program wrote.
// Rule (docs/spec/choices.md §Agent programs): a new process per turn, in its own process
// group, ended with the turn, the member and the formation.
#pragma once

#include "os/piped_program.hpp"

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace mur {

struct HarnessStart : ProgramStart {
  std::string stdin_text;
  std::size_t stdout_cap = 64 * 1024;
  std::size_t stderr_tail = 4 * 1024;
};

struct HarnessEnd : ProgramEnd {
  std::string out; // stdout, up to the cap
  bool cut = false; // stdout passed the cap
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
