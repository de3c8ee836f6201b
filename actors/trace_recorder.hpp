// trace_recorder.hpp — the trace port: stamps each TraceEvent with its envelope and hands the
// line to a sink (the JSONL file of a real session, nothing in a simulation) while keeping it.
//
// Invariant: every line begins with event_type, event_id (evt_…), parent_id (null only on
// session_start), session_id, timestamp (unix ms from the actor clock, so simulated time in
// tests, wall-clock time otherwise: both from the injected IdClock); lines are kept in the order
// received. No field is added that could hold a token.
// Seed: "Each member's trace names it [the formation_id]."
#pragma once

#include "actors/id_clock.hpp"
#include "actors/ports.hpp"

#include <caf/fwd.hpp>

#include <functional>
#include <string>

namespace mur {

using TraceSink = std::function<void(const std::string& line)>;

// Answers (trace_atom) with std::vector<std::string>: every line so far. Event ids and
// timestamps come from an IdClock built from `ids` (its stream: the session id + "/trace").
trace_port spawn_trace_recorder(caf::actor_system& sys, std::string session_id, TraceSink sink = {},
                                IdClockSpec ids = {});

} // namespace mur
