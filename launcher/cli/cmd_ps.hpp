// cmd_ps.hpp — `mur ps [--json]`: running sessions, grouped by formation.
//
// Invariant: only records whose process is alive with the same start stamp are listed; the
// records of gone processes (sessions and launchers) are removed as they are found. Nothing
// printed is a token: the operator token stays in its 0600 record. In human mode each formation
// opens with its summary line, `formation <id>: L listed (members…)[, P pruned now]`, and a
// formation with nothing alive is not listed; when nothing runs, one line says so (with how many
// records of gone processes were removed); --json keeps its own shape.
// Spec: docs/spec/choices.md §Command line (`mur ps`); docs/spec/formation.md §Stopping and
// listing.
#pragma once

namespace mur {

int cmd_ps(bool json);

} // namespace mur
