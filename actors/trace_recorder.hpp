// trace_recorder.hpp — the trace port: stamps each TraceEvent with its envelope and hands the
// line to a sink (the JSONL file of a real session); without a sink (a simulation, a test) it
// keeps the lines in memory for read-back instead.
//
// Invariant: every line begins with event_type, event_id (evt_…), parent_id (null only on
// session_start), session_id, timestamp (unix ms from the actor clock, so simulated time in
// tests, wall-clock time otherwise: both from the injected IdClock); lines reach the sink in the
// order received. No field is added that could hold a token. An event's fields (the text of a
// JSON object, as its sender dumped it) are spliced after the envelope, not parsed again.
// A blob (TraceEvent, bytes) is handed to the sink before its event's line, so a line that
// names a blob is never read before the blob exists; without a sink the blobs are kept with the
// lines (TraceState::blobs, for simulations).
// Memory: a recorder with a sink keeps no line (a session's trace does not grow its memory).
// Durability: the sink may buffer; the recorder asks it to flush at most `flush_every` after a
// line was written (so a crash loses at most that much of the trace) and whenever it is asked
// for its lines (trace_atom) — the session's end asks, so everything before it is on disk when
// it answers.
// Rule: in a formation, a member's session_start carries the formation id
// (docs/spec/capsule.md §Trace format).
#pragma once

#include "actors/id_clock.hpp"
#include "actors/ports.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace mur {

// Where trace lines go: `write` takes each line (it may buffer), `flush` puts what it holds on disk,
// `blob` stores a content blob (a transcript) as `blobs/<sha256 of its bytes>` (none: dropped).
struct TraceSink {
  TraceSink() = default;
  TraceSink(std::function<void(const std::string& line)> w, std::function<void()> f = {},
            std::function<void(const std::string& bytes)> b = {})
      : write(std::move(w)), flush(std::move(f)), blob(std::move(b)) {}
  std::function<void(const std::string& line)> write;
  std::function<void()> flush;
  std::function<void(const std::string& bytes)> blob;
  explicit operator bool() const { return static_cast<bool>(write); }
};

inline constexpr std::chrono::milliseconds flush_every{200};

// Answers (trace_atom) with std::vector<std::string>: every line so far when it has no sink,
// none when it has one (after flushing the sink). Event ids and timestamps come from an IdClock
// built from `ids` (its stream: the session id + "/trace").
trace_port spawn_trace_recorder(caf::actor_system& sys, std::string session_id, TraceSink sink = {},
                                IdClockSpec ids = {});

} // namespace mur
