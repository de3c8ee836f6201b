// process_start.hpp — a process's start stamp, so a pid found in a record can be told apart
// from a later process that reused it.
//
// Invariant: the stamp is field 22 (starttime, clock ticks since boot) of /proc/<pid>/stat,
// read after the command name's closing parenthesis; "" when the process does not exist.
// Spec: murmur-capsule.md §4 ("trusted only if pid alive, start time matches").
#pragma once

#include <string>
#include <sys/types.h>

namespace mur {

std::string process_start_of(pid_t pid);

} // namespace mur
