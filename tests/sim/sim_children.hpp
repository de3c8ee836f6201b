// sim_children.hpp — the simulated child port: a member's delegated sub-capsules started as
// member actors in the same actor system, each with a door on the loopback network that only
// its own operator credential opens (no formation verifier: a formation token is refused 401),
// and a spawner lifeline the port holds (its EndChild, or the port's own end, closes it).
// Invariant: as in the real adapter (member/child_spawner.cpp), a child is started for one
// delegation with task_acceptance single and after_task sleep (it ends when EndChild closes its lifeline, once the parent has read its answer), inherits the formation id and
// nothing else of its parent, and learns of its parent's end only through its lifeline. When
// the parent member ends in any way (`(caf::link_atom, parent)` names it), every lifeline the
// port holds closes, as a process's write ends close when it exits; the port itself stays, so
// tests can still read its children's traces. Every actor it started is registered with the
// owner list the fixture ends. A delegation's slot of the live ledger goes back once its child's
// member actor is gone, or at once when it cannot start (as the real port gives it back once the
// child's process has ended).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/id_clock.hpp"
#include "actors/ports.hpp"
#include "capsule/manifest.hpp"
#include "sim_world.hpp"

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mur::sim {

// The child port and the supervisor of each child, plus what tests read back:
// `(trace_atom, call id)` a child's trace lines, `(get_atom, call id)` whether it still runs.
using sim_children_actor = child_port::extend_with<supervisor_port>::extend<
  caf::replies_to<trace_atom, std::string>::with<std::vector<std::string>>,
  caf::replies_to<caf::get_atom, std::string>::with<bool>,
  caf::reacts_to<caf::link_atom, member_handle>>;

struct SimChildrenSetup {
  std::map<std::string, Manifest> installed; // by "name@version"
  std::set<std::string> fail_start;          // capsule names whose start fails
  sim_network_actor network;
  IdClockSpec ids;
  std::string formation_id;                  // the parent's ("" outside one)
  std::string parent_session;                // the parent's session id (the child's spawned_by)
  std::shared_ptr<std::vector<caf::actor>> owned; // ended by the fixture, whatever happens
  int parent_depth = 0;                      // the parent's delegation depth (its children's: one more)
  // The next loopback port a child's door takes, shared by every child port of a formation (a
  // grandchild's port too), so no two doors ever share a url. Made at the first spawn if absent.
  std::shared_ptr<int> next_port;
  live_port live;                            // the formation's live ledger (null: no ceiling)
};

sim_children_actor spawn_sim_children(caf::actor_system& sys, SimChildrenSetup setup);

} // namespace mur::sim
