// host_formation.hpp — one formation's members on a host (`mur host`): the host's side of the
// lifeline across machines.
//
// State table:
//   open     --(SpawnMember, HostSecret)-->  the bundle is read as a member reads it (refused:
//                                            the request fails, nothing starts); it goes to the
//                                            local spawn port as the launcher's own process
//                                            spawner would hand it; answered (MemberStarted, the
//                                            member's lifeline end) once the member is ready
//   open     --HostBeat-->                   answered at once; the beat counts
//   open     --beat check, `lost_after` checks in a row without a beat--> ending ("missed beats")
//   open     --down of the launcher's side (it ended, its process died, the connection broke)-->
//                                            ending
//   open     --spawned / MemberExited from the local port--> passed on to the launcher's side
//   ending   every lifeline end it holds closes at once (each member winds down as it does when
//            its own launcher ends); after `kill_grace`, KillMember for each member still
//            running, then the local spawn port ends and so does this actor
//   ending   --a member's start answered late--> its lifeline closes at once, and it is killed
//            with the rest
// Invariants: a member started here never outlives its launcher's last beat by more than
// `lost_after` + 1 beat periods plus `kill_grace` (a beat just after a check counts at the next);
// nothing but a bundle that parses for this
// formation reaches the spawn port; the lifeline ends stay here (the launcher's side holds proxies).
// Rule: the launcher ends every member when the formation ends, "even if the launcher is killed
// with SIGKILL" — across machines too (docs/hosts.md §The lifeline across hosts).
#pragma once

#include "actors/ports.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/wire/host_messages.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace mur {

// What a launcher's side holds of a host formation (as a caf::actor it received over the wire).
using host_formation_port = caf::typed_actor<caf::replies_to<SpawnMember, HostSecret>::with<MemberStarted, caf::actor>,
                                             caf::reacts_to<SendAddresses>, caf::reacts_to<KillMember>,
                                             caf::replies_to<HostBeat>::with<HostBeat>>;

// What the host formation hears from its local spawn port, and its own timer.
using host_formation_actor =
  host_formation_port::extend<caf::reacts_to<spawned_atom, std::string, std::int64_t>, caf::reacts_to<MemberExited>,
                              caf::reacts_to<beat_atom>, caf::reacts_to<deadline_atom>>;

struct HostFormationSetup {
  std::string formation_id;
  caf::actor launcher;            // the launcher's side (actors/host_route.hpp): watched, and told
  spawn_port spawn;               // this host's own spawn port for this formation (owned: ended with it)
  std::chrono::milliseconds period{1000};
  int lost_after = 3;             // beat checks in a row without a beat
  std::chrono::milliseconds kill_grace{1500};
  std::optional<LauncherIdentity> identity; // who stands for the launcher in the members' bundles here
};

host_formation_actor spawn_host_formation(caf::actor_system& sys, HostFormationSetup setup);

} // namespace mur
