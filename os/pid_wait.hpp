// pid_wait.hpp — waiting for a process we did not start to end: its pidfd becomes readable.
//
// Invariant: the wait is an event (poll on pidfd_open's descriptor), bounded by the caller's
// time; a pid that does not exist counts as gone at once. Nothing here signals anything.
// Rule: `mur stop` waits for the members to be gone (docs/spec/formation.md §Stopping and listing).
#pragma once

#include <chrono>
#include <sys/types.h>
#include <vector>

namespace mur {

// True when `pid` ended (or never existed) within `bound`.
bool wait_pid_gone(pid_t pid, std::chrono::milliseconds bound);

// True when every pid ended within `bound`, counted once for all.
bool wait_pids_gone(const std::vector<pid_t>& pids, std::chrono::milliseconds bound);

} // namespace mur
