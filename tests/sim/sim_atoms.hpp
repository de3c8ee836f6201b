// sim_atoms.hpp — the sim's own words, in a type-ID block appended after the product's.
//
// Invariant: the simulated adapters' private atoms live in a block that starts where the
// product's ends (`caf::id_block::mur::end`), so they share one ID space with the vocabulary
// without putting test-only words into the `mur` binary. The block has no types today; if a sim
// message type is ever added, `register_block<caf::id_block::mur_sim>` registers it.
#pragma once

#include "messages/vocabulary/message_types.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(mur_sim, caf::id_block::mur::end)

  CAF_ADD_ATOM(mur_sim, mur::sim, unplug_atom, "unplug") // spawner → network: a member's door is gone
  CAF_ADD_ATOM(mur_sim, mur::sim, broken_atom, "broken") // spawner → network: break this door's streams
  CAF_ADD_ATOM(mur_sim, mur::sim, hang_atom, "hang")     // test → spawner: this member's door answers nothing
  CAF_ADD_ATOM(mur_sim, mur::sim, children_atom, "children") // test → spawner: a member's child port
  CAF_ADD_ATOM(mur_sim, mur::sim, live_atom, "simlive")      // test → spawner: the formation's live ledger

CAF_END_TYPE_ID_BLOCK(mur_sim)
