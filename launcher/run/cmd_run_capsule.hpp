// cmd_run_capsule.hpp — `mur run --capsule NAME --capsule-version V [--capsule-sha256 H]` and
// `mur run --manifest DIR`: resolves the capsule, then runs its session (member/run_capsule).
//
// Invariant: an installed capsule resolves from the project store of --store-root (default the
// current directory), then the global store, and its re-hashed bytes must equal the recorded
// digest — and the pinned one when --capsule-sha256 is given — else E-RUN-008 before anything
// starts.
// Spec: docs/spec/capsule.md §Session launch order; docs/spec/choices.md §Files (stores:
// project, then global).
#pragma once

#include "member/run_capsule.hpp"

namespace mur {

int cmd_run_capsule(const RunCapsuleOptions& options);

} // namespace mur
