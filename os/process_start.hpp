// process_start.hpp — a process's start stamp, so a pid found in a record can be told apart
// from a later process that reused it.
//
// Invariant: the stamp is field 22 (starttime, clock ticks since boot) of /proc/<pid>/stat,
// read after the command name's closing parenthesis; "" when the process does not exist.
// Spec: docs/spec/capsule.md §Running records (a record is trusted only while its pid is alive
// with the same start stamp).
#pragma once

#include <string>
#include <sys/types.h>

namespace mur {

std::string process_start_of(pid_t pid);

} // namespace mur
