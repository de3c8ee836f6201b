// sim_world.hpp — the in-process adapters behind the ports, for whole formations under CAF's
// test scheduler: a loopback network (door calls by direct message, with the same
// Authorization verification a real door does), a spawn port that starts members as actors
// (wired by the real member_setup()), lifelines that close when the launcher's lifeline holder
// ends, trace recorders kept in memory, and a seeded clock and id source.
// Each adapter is a typed actor whose interface extends the port it stands in for
// (actors/ports.hpp), so it cannot drift from the real adapter's protocol.
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/id_clock.hpp"
#include "actors/ports.hpp"
#include "capsule/manifest.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "sim_atoms.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>

#include <map>
#include <set>
#include <string>

namespace mur::sim {

// What the loopback network verifies a door's Authorization with (a real door server holds the same).
struct DoorKeys {
  std::shared_ptr<DoorTokenIssuer> issuer;
  std::shared_ptr<FormationVerifier> verifier;
};

} // namespace mur::sim

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mur::sim::DoorKeys)

namespace mur::sim {

// The door-call port, plus: register a door (url, door, keys), unplug one, break its streams.
using sim_network_actor = network_port::extend<caf::reacts_to<caf::put_atom, std::string, door_handle, DoorKeys>,
                                               caf::reacts_to<unplug_atom, std::string>,
                                               caf::reacts_to<broken_atom, std::string>,
                                               caf::reacts_to<hang_atom, std::string>>;

// The spawn port and the supervisor of every member it starts, plus what tests read back.
// `(hang_atom, member name)`: from then on that member's door answers no request (as a
// SIGSTOPped process's door: connections are taken, nothing comes back). A member ended by
// KillMember (or its own end) refuses connections (a transport error, `refused`).
using sim_spawner_actor = spawn_port::extend_with<supervisor_port>::extend<
  caf::reacts_to<hang_atom, std::string>,
  caf::replies_to<caf::get_atom, std::string, caf::get_atom>::with<TaskView>, // how a member's launch task ended
  caf::replies_to<trace_atom, std::string>::with<std::vector<std::string>>,   // a member's trace lines
  caf::replies_to<caf::get_atom, std::string>::with<member_handle>,            // a member's actor (null once gone)
  caf::replies_to<children_atom, std::string>::with<caf::actor>,              // a member's child port (null: none)
  caf::replies_to<live_atom>::with<caf::actor>>;                              // the live ledger (null: none)

using progress_log_actor = progress_port::extend<caf::replies_to<caf::get_atom>::with<std::vector<FormationProgress>>>;

struct Knobs {
  std::set<std::string> fail_spawn;        // the spawn port refuses these members
  std::set<std::string> never_ready;       // their doors answer as another session
  std::set<std::string> withhold_addresses;// their address lines are dropped
  std::set<std::string> broken_streams;    // subscriptions to their doors break at once: the
                                           // request is answered with the task as it is, then
                                           // the subscriber is told TaskStreamLost
  std::map<std::string, Manifest> installed; // capsules a delegation may start, by "name@version"
  std::set<std::string> fail_children;     // capsule names whose children fail to start
  int max_live = 0;                        // > 0: the formation's live ledger, shared by every member
                                           // and child port (its ceiling counts the members)
};

// Manifests by member name (the roster's name, not the capsule's). `ids` is handed to every
// member it starts (and mints their session ids): a simulated spec makes runs repeat exactly.
sim_spawner_actor spawn_sim_spawner(caf::actor_system& sys, std::map<std::string, Manifest> manifests,
                                    sim_network_actor network, Knobs knobs = {}, IdClockSpec ids = {});
sim_network_actor spawn_sim_network(caf::actor_system& sys);
progress_log_actor spawn_progress_log(caf::actor_system& sys);

} // namespace mur::sim
