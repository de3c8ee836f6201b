// launched_mur.hpp — a real `mur` launcher left running while a test talks to it and signals it.
//
// Invariant: the child's stdout is a pipe read line by line as lines come; its stderr goes to a
// file the test reads once it ended; stdin is /dev/null; it leads a process group of its own. No read or wait can block forever: a
// line that does not come within its bound fails the test (an exception naming the bound), a
// child that does not end within its bound is SIGKILLed (so the test's exit-code checks fail).
// The bounds are safety nets far above any real run, never timing assertions. The child is
// SIGKILLed and reaped when the object goes away if the test did not end it. `gone_within`
// waits on a pidfd (an event, not a sleep loop) for any process.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace mur::test {

class LaunchedMur {
public:
  LaunchedMur(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
              const std::string& cwd = {});
  ~LaunchedMur();
  LaunchedMur(const LaunchedMur&) = delete;
  LaunchedMur& operator=(const LaunchedMur&) = delete;

  static constexpr std::chrono::seconds read_bound{60};
  static constexpr std::chrono::seconds wait_bound{120};

  // "" at EOF; throws std::runtime_error when no whole line came within `bound`.
  std::string read_line(std::chrono::milliseconds bound = read_bound);
  void signal(int sig);
  // To its whole process group (it starts one of its own), as Ctrl-C at a terminal does.
  void signal_group(int sig);
  // Exit code, 128+N when killed by signal N; SIGKILLs the child if it has not ended within `bound`.
  int wait(std::chrono::milliseconds bound = wait_bound);
  std::string err() const; // what it printed on stderr so far
  pid_t pid() const { return pid_; }

private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string err_path_;
  bool reaped_ = false;
  int code_ = -1;
};

// True once process `pid` has ended (or never existed), waiting at most `bound`.
bool gone_within(pid_t pid, std::chrono::milliseconds bound);

// Pids of running processes whose environment names MURMUR_FORMATION_ID=<formation_id>.
std::vector<pid_t> formation_processes(const std::string& formation_id);

// The bytes of a file (e.g. /proc/<pid>/cmdline); "" when unreadable.
std::string read_bytes(const std::string& path);

} // namespace mur::test
