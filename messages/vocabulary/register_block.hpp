// register_block.hpp — registers every type of a CAF type-ID block with an actor system config.
//
// Invariant: the types registered are exactly the block's, each under its block name
// (`caf::type_name_by_id`), so no second, hand-written list of names can drift from the block.
// Header-only (a template over the block) so a test vocabulary appended after the product's
// block (tests/sim/sim_atoms.hpp) registers the same way.
#pragma once

#include <caf/actor_system_config.hpp>
#include <caf/type_id.hpp>

#include <utility>

namespace mur {

template <caf::type_id_t First, caf::type_id_t... Offsets>
void register_type_ids(caf::actor_system_config& cfg, std::integer_sequence<caf::type_id_t, Offsets...>) {
  (cfg.add_message_type<typename caf::type_by_id<First + Offsets>::type>(
     caf::type_name_by_id<First + Offsets>::value),
   ...);
}

// `Block`: a `caf::id_block::<name>` struct (its `begin` and `end`); a block without types is fine.
template <class Block>
void register_block(caf::actor_system_config& cfg) {
  register_type_ids<Block::begin>(cfg, std::make_integer_sequence<caf::type_id_t, Block::end - Block::begin>{});
}

} // namespace mur
