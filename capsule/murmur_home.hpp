// murmur_home.hpp — where every store, running record and formation directory lives.
//
// Invariant: `$MURMUR_HOME` when set and non-empty, else `$HOME/.murmur`; tests set it to
// isolate themselves (docs/spec/choices.md §Protocol choices). Directories made here are
// owner-only (0700).
#pragma once

#include <string>

namespace mur {

std::string murmur_home();

// A formation's live ledger (os/live_slots.hpp): $MURMUR_HOME/formations/<frm_id>/.live — a
// name no member's directory can take (member names never start with a dot).
std::string formation_live_dir(const std::string& formation_id);

// mkdir -p with mode 0700 for every directory it creates; refuses (E-INS-003) when a path
// component exists and is not a directory, or cannot be made.
void make_private_dirs(const std::string& path);

} // namespace mur
