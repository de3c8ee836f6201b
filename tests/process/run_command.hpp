// run_command.hpp — runs a real binary for process-level tests and captures what it printed.
//
// Invariant: the child gets exactly the environment the test gives (plus PATH and HOME), its
// own working directory, and no descriptor of the test but stdin (/dev/null), stdout and stderr.
// No read blocks forever: a child still writing or running after `bound` (a safety net far above
// any real run, not a timing assertion) is SIGKILLed, its exit code is then 137 and `err` ends
// with a line saying so.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mur::test {

struct Ran {
  int exit_code = -1; // 128+N when killed by signal N
  std::string out;
  std::string err;
};

// argv and envp for posix_spawn: the given environment plus PATH and HOME from the test's own.
struct SpawnArgs {
  SpawnArgs(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);
  SpawnArgs(const SpawnArgs&) = delete;
  SpawnArgs& operator=(const SpawnArgs&) = delete;
  std::vector<std::string> env_strings, argv_strings;
  std::vector<char*> envp, args;
};

Ran run_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                const std::string& cwd = {}, std::chrono::milliseconds bound = std::chrono::seconds(120));

// Like run_command, but with the child's stderr held: the pipe is full before the child starts,
// so its first write to stderr blocks. Once it is blocked there (its main thread in
// write(2, …)), `while_held` runs; then both outputs are read to the end (without the filler).
// Throws when the child never blocked on stderr. A test uses it to act at a known point of a
// run, e.g. between the launcher's admission (which warns) and its first member's start.
Ran run_command_held(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                     const std::function<void()>& while_held,
                     std::chrono::milliseconds bound = std::chrono::seconds(120));

// A fresh directory under $TMPDIR, removed when the object goes away.
struct TempDir {
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

} // namespace mur::test
