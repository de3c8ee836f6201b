// cmd_stop.hpp — `mur stop frm_…|ses_… [--timeout S]`.
//
// Invariant: a formation is stopped through its launcher only — SIGTERM to the launcher's pid
// (start stamp re-verified; never its group), SIGKILL after S seconds (its members then see their
// lifelines close; without `running/<frm>.json` the launcher is the `formation_launcher` its
// members' records name, and more than one ⇒ E-RUN-024) — then up to 25 s for every member to be gone, pruning records of gone
// processes. A session is asked to stop at its door (`session/stop` with its record's operator
// token, which goes only into the Authorization header), then SIGTERM, then SIGKILL, each after
// S seconds. Exit 0 when everything is gone; E-RUN-022 when nothing runs; E-RUN-024 when
// something is still running.
// Rule: a formation ends by mur stop, a caught signal or its deadline
// (docs/spec/formation.md §Stopping and listing, §How a formation ends).
#pragma once

#include <string>

namespace mur {

int cmd_stop(const std::string& target, double timeout_seconds);

} // namespace mur
