// sim_live_ledger.hpp — the simulated live port: one formation's live ledger as a counter that
// every simulated member and child port of the formation shares.
// Invariant: as in the real adapter (member/live_ledger.cpp over os/live_slots.hpp), at most
// max_live − members slots are held at once; FreeLiveSlot lets one taken for that delegation go
// (the kernel's letting go of a dead process's locks has no counterpart here). For tests:
// `(get_atom)` reads the most slots ever held at once, `(get_atom, get_atom)` how many are held now.
#pragma once

#include "actors/ports.hpp"

#include <caf/fwd.hpp>

#include <cstdint>
#include <utility>

namespace mur::sim {

using sim_live_actor = live_port::extend<caf::replies_to<caf::get_atom>::with<std::int32_t>,
                                        caf::replies_to<caf::get_atom, caf::get_atom>::with<std::int32_t>>;

sim_live_actor spawn_sim_live_ledger(caf::actor_system& sys, int max_live, int members);

} // namespace mur::sim
