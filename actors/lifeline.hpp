// lifeline.hpp — the lifeline, both sides, as actors.
//
// Launcher side (`spawn_lifelines`): holds one end per member (a second end put under a name — a
// restarted member — closes the first); `(close_atom, name)` closes one,
// `(close_atom)` closes all; when the holder ends for any reason — including its launcher
// being killed, since it is linked to it — every end it still holds is closed.
// Member side (`spawn_lifeline_watch`): watches one end and tells its member `lifeline_atom`
// exactly once when that end closes.
// An end is an actor: in a simulation a plain actor whose exit is the pipe's EOF; in a real
// launcher an actor owning the pipe's write end, which closes the fd when it exits.
// Invariant: the only way a member learns that its formation ended is its lifeline, and it
// learns it however the launcher ended (closed deliberately, or killed).
// Typed: the holder (lifelines_handle) and the ends (lifeline_end). The watch stays untyped: it is
// sent no message at all, it only monitors.
// Rule: the launcher alone holds the write ends; a member's end reads EOF however the launcher
// stops, SIGKILL included (docs/spec/door.md §The lifeline).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/ports.hpp"

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

namespace mur {

// Launcher side. Register an end with `(caf::put_atom, std::string name, lifeline_end end)`.
lifelines_handle spawn_lifelines(caf::actor_system& sys);

// A simulated end: an actor that does nothing until it is closed (sent an exit or close_atom).
lifeline_end spawn_lifeline_end(caf::actor_system& sys);

// Member side: monitors `end`; when it goes away, sends `lifeline_atom` to `member` once. It
// keeps itself alive until then (or until its member ends), as a reader thread would.
caf::actor spawn_lifeline_watch(caf::actor_system& sys, lifeline_end end, lifeline_listener member);

} // namespace mur
