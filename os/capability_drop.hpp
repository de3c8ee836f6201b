// capability_drop.hpp — a process that holds none of root's privileges, even when run as root.
//
// Invariant: after drop_all_capabilities() returns 0, the calling thread (and everything it
// starts) has no capability effective, permitted, inheritable or ambient, an empty bounding set,
// and locked securebits, so no later execve (a setuid file, a root-run program) grants one
// again. A process that held none (an ordinary user) only has its ambient set cleared.
// Rule: a sealed program or member runtime holds no capability (docs/isolation.md §System calls).
#pragma once

#include <string>

namespace mur {

// 0, or the errno of the step that failed (`what` names it). Nothing is half-dropped silently:
// a failure is the caller's to refuse.
int drop_all_capabilities(std::string& what);

} // namespace mur
