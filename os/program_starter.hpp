// program_starter.hpp — how a member whose own runtime is sealed still starts its programs sealed
// (each in namespaces of its own, which a sealed process may not make) and its delegated children:
// a small process, `mur-confine --starter`, that the member starts before it seals itself and
// that starts each of them on its behalf, as a child of the member itself.
//
// Invariant: the starter holds no key (it is started with an empty environment, before the member
// reads any, and is not dumpable) and lives exactly as long as its member (it ends when the member
// closes its end or dies). It was given, once and before the member sealed itself, the member's
// own plan — its bound. Whatever the member asks later, nothing the starter starts can reach
// more than that bound: a program is started through mur-confine, which applies the bound's
// Landlock rules on top of the program's own plan; a delegated child (`sealed`) starts under the
// bound, without capabilities and behind the syscall filter, with a starter of its own (same
// bound) at the descriptor named by MURMUR_STARTER_FD. The process started is a child of the
// one that asked (clone with CLONE_PARENT): it waits for it, signals it and reaps it as if it had
// started it itself. Requests from several threads never mix (one message each, the answer on a
// socket of the request's own).
// Rule: every member confined, the member runtime itself (docs/isolation.md §The member runtime).
#pragma once

#include "os/harness_isolation.hpp"
#include "os/process_spawn.hpp"
#include "os/unique_fd.hpp"

#include <sys/types.h>

#include <string>

namespace mur {

enum class StartKind {
  confined, // mur-confine with a plan at descriptor 3 (os/confined_start.hpp): request.argv[0] is replaced
  sealed,   // request.program, under the bound, with a starter of its own
};

// Starts the starter with `bound` (single-threaded caller: the member before it seals itself)
// and returns this process's end. Throws Failure E-ISO-001 when mur-confine is missing or the
// starter cannot be started.
UniqueFd start_program_starter(const IsolationPlan& bound);

// The starter this process starts through, -1 for none (programs are then started directly).
// Set once, before any thread starts: the one start_program_starter returned, or the one
// inherited at MURMUR_STARTER_FD (a delegated child's).
void use_program_starter(int fd);
int program_starter();
int inherited_program_starter(); // MURMUR_STARTER_FD, when it names an open socket; else -1
// When the member ends, after everything it started has: its starter ends too, and is reaped.
void end_program_starter();

// `request` started by the starter `starter`: its pid, a child of this process. Throws
// std::system_error when it could not be started (nothing is left to reap).
pid_t start_through(int starter, const SpawnRequest& request, StartKind kind);

// mur-confine --starter: serves the socket at descriptor 3 with the bound read from descriptor
// 4 until the member ends.
int program_starter_main();

} // namespace mur
