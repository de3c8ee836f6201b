// harness_outcome.hpp — how the end of an agent program's turn becomes the model turn its task
// reads: its answer, or the E-HAR failure that says why there is none.
//
// Invariant: nothing the program wrote reaches the turn unredacted — the declared secrets (the
// values its `${ENV}`s read) AND this turn's own MCP token (the program may print what it was
// handed) are written out of its stdout and its stderr tail before either is cut or quoted; a cut
// answer first loses an end that may be part of a secret. The first of: could not start
// (E-HAR-001), was ended for silence (E-HAR-003), a signal or a non-zero status (E-HAR-002)
// decides a failure, with its Fix and the stderr tail; otherwise its stdout is the answer and
// the tail goes to the trace.
// Rule: docs/spec/choices.md §Agent programs (the redaction rule, docs/errors.md).
#pragma once

#include "messages/vocabulary/secret_redaction.hpp"
#include "messages/wire/model_turn.hpp"
#include "os/member_cgroup.hpp"
#include "os/harness_run.hpp"

#include <chrono>
#include <string>

namespace mur {

struct HarnessTurnEnd {
  std::string program;                      // its absolute path
  const SecretRedaction* declared = nullptr; // the values its env read from ${…}
  std::string token;                        // the turn's MCP token
  std::chrono::milliseconds turn_timeout{600000};
  bool timed_out = false;                   // ended for its silence
  LimitCounts reached;                      // what the member's limits refused during the turn
  ResourceBounds bounds;                    // the member's limits (capabilities.limits)
};

// The model turn of `end` (its stats' duration is the caller's).
ModelTurn harness_outcome(const HarnessTurnEnd& turn, const HarnessEnd& end);

} // namespace mur
