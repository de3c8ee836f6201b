// sim_world.hpp — the in-process adapters behind the ports, for whole formations under CAF's
// test scheduler: a loopback network (door calls by direct message, with the same
// Authorization verification a real door does), a spawn port that starts members as actors,
// lifelines that close when the launcher's lifeline holder ends, trace recorders kept in memory.
#pragma once

#include "capsule/manifest.hpp"
#include "sim_atoms.hpp"
#include "messages/door_token.hpp"
#include "messages/formation_verifier.hpp"

#include <caf/allowed_unsafe_message_type.hpp>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include <map>
#include <set>
#include <string>

namespace mur::sim {

// What the loopback network verifies a door's Authorization with (a real door server holds the same).
// Register a door with (caf::put_atom, std::string url, caf::actor door, DoorKeys).
struct DoorKeys {
  std::shared_ptr<DoorTokenIssuer> issuer;
  std::shared_ptr<FormationVerifier> verifier;
};

struct Knobs {
  std::set<std::string> fail_spawn;        // the spawn port refuses these members
  std::set<std::string> never_ready;       // their doors answer as another session
  std::set<std::string> withhold_addresses;// their address lines are dropped
  std::set<std::string> broken_streams;    // subscriptions to their doors break at once
};

// `(hang_atom, member name)` to the spawn port (hang_atom: tests/sim/sim_atoms.hpp): from then on
// that member's door answers no request (as a SIGSTOPped process's door: connections are taken,
// nothing comes back). A member ended by KillMember (or its own end) refuses connections (a
// transport error, `refused`).

// Manifests by member name (the roster's name, not the capsule's).
caf::actor spawn_sim_spawner(caf::actor_system& sys, std::map<std::string, Manifest> manifests,
                             caf::actor network, Knobs knobs = {});
// `broken_streams`: doors (by member name) whose SubscribeToTask streams break at once: the
// request is answered with the task as it is, then the subscriber is told TaskStreamLost.
caf::actor spawn_sim_network(caf::actor_system& sys);
caf::actor spawn_progress_log(caf::actor_system& sys);

} // namespace mur::sim

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mur::sim::DoorKeys)
