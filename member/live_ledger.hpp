// live_ledger.hpp — the real live port (actors/ports.hpp): this process's share of the
// formation's live ledger on disk (os/live_slots.hpp).
//
// Invariant: a granted TakeLiveSlot holds one slot file's lock until FreeLiveSlot for the same
// delegation, or until this process ends (the kernel lets every lock go then, SIGKILL included);
// one slot at most per delegation id. The ledger is read once, when the port starts: a ledger
// that cannot be read refuses every slot with that reason (it fails closed).
// Rule: a per-formation ceiling of live members and children (docs/roster.md §Limits).
#pragma once

#include "actors/ports.hpp"

#include <caf/fwd.hpp>

#include <string>

namespace mur {

// `dir`: the ledger's directory (a formation's, from capsule/murmur_home.hpp
// formation_live_dir; a capsule run alone makes its own in its session directory); "" when no
// usable path could be had (every slot is then refused, naming why).
live_port spawn_live_ledger(caf::actor_system& sys, const std::string& dir);

} // namespace mur
