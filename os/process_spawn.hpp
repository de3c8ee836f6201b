// process_spawn.hpp — starting a child process that inherits exactly the descriptors named.
//
// Invariant: a child is started with posix_spawn (never fork in a threaded process) in the
// working directory asked (posix_spawn_file_actions_addchdir_np; ours when none); it gets
// stdin/out/err as asked, the `inherit` descriptors at 3, 4, … (dup2, which clears their
// close-on-exec flag), and no other descriptor: everything from 3 + inherit.size() up is closed
// in the child. Its signal mask is empty and SIGPIPE/SIGINT/SIGTERM/SIGHUP are at their default.
// Rule: a member inherits its own channel and lifeline and no other descriptor
// (docs/spec/formation.md §Launch; docs/ARCHITECTURE.md §Process hygiene).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace mur {

struct SpawnRequest {
  std::string program;            // a path; not searched on PATH
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // the child's whole environment, `NAME=value`
  std::vector<int> inherit;       // placed at fds 3, 4, … in this order
  int stdin_fd = -1;              // -1: the child shares ours
  int stdout_fd = -1;
  int stderr_fd = -1;
  bool own_process_group = false; // POSIX_SPAWN_SETPGROUP: the child leads a new group
  std::string cwd;                // the child's working directory; "" = ours
};

// The child's pid. Throws std::system_error if it could not be started.
pid_t spawn_process(const SpawnRequest& request);

// This process's environment as `NAME=value` strings.
std::vector<std::string> current_environment();

// `env` without any `NAME=…` entry, then with `NAME=value` appended.
void set_env_entry(std::vector<std::string>& env, const std::string& name, const std::string& value);

// This binary's path (/proc/self/exe resolved; the running image itself when the file was
// replaced on disk): what a launcher or a delegating member starts as `mur run`.
std::string self_binary();

// Where this binary was started from ("" when it cannot be read), even if it has been replaced
// or removed since: what files installed beside it are found from (mur-confine).
std::string self_binary_path();

} // namespace mur
