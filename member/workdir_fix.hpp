// workdir_fix.hpp — the Fix of E-RUN-007 (a session's directory that cannot be made or
// written), as the way this session was started allows.
//
// Invariant: the Fix names an option the command that started the session takes: `--workdir`
// only for `mur run --capsule`/`--manifest`; inside a formation (`mur run --roster`, which refuses
// --workdir) it says to make the directory writable — the project directory for the entry
// member, `$MURMUR_HOME` for a peer, or to set MURMUR_HOME to a writable one.
// Rule: every refusal's Fix is one that works (docs/spec/choices.md §A usable command line).
#pragma once

#include <string>

namespace mur {

// `dir`: the directory that could not be made or written. Reads MURMUR_FORMATION_ID (set for
// every member of a formation) and MURMUR_PROJECT_DIR (the formation's project).
std::string unwritable_dir_fix(const std::string& dir);

} // namespace mur
