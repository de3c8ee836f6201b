// result_writer.hpp — the supervisor port of a member process: keeps out/result.txt holding the
// newest task that ended, and hands what the waiting main thread must see (the launch task's
// ending, the session's end) on to it.
//
// Invariant: a task's end costs the door's process one message between actors and, at most, one
// in-place rewrite of result.txt; the main thread (a blocking receive) is woken only for the
// launch task and the session's end, never once per task (waking it per task cost a serving door
// about a third of its requests per second on a 2-core machine). The newest result is written
// at most 100 ms after its task ended (one write per 100 ms however many tasks end, not one
// system call per task), at once for the launch task, and always before the session's end is
// handed on.
// Spec: docs/spec/capsule.md §Session layout (`out/result.txt`).
#pragma once

#include "actors/ports.hpp"
#include "member/session_dir.hpp"

#include <caf/fwd.hpp>

namespace mur {

// `waiter` receives TaskEvent (the launch task ended) and (ended_atom, member, code).
supervisor_port spawn_result_writer(caf::actor_system& sys, SessionDir dir, supervisor_port waiter);

} // namespace mur
