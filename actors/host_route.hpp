// host_route.hpp — the launcher's side of members on other hosts: one spawn port for the
// launcher actor, whatever machine each member runs on.
//
// State table (per host):
//   not open  --(put_atom, host, its formation)-->  open: watched, and beaten every `period`
//   open      --(SpawnMember, BundleRef) for a member placed there--> the bundle, with its door's
//                                     certificate and key added, rendered as the member's
//                                     channel line, goes inside HostSecret to the
//                                     host's formation (actors/host_formation.hpp); its answer is
//                                     the launcher's (MemberStarted, the member's lifeline end —
//                                     a proxy: closing it closes the member's lifeline there)
//   open      --a beat unanswered within `lost_after` periods, or the host's formation down-->
//                                     lost: every member started there that has not ended is
//                                     reported to the launcher as exited (status 255, the
//                                     reason in its stderr tail), each start still asked of it
//                                     is refused at once (one answered later is ended there);
//                                     a later end reported for a member already reported is dropped
//   lost      --(SpawnMember, BundleRef) for a member placed there--> refused, naming the host
// A member placed on no host goes to the local spawn port unchanged (delegated: the local
// port reports to the launcher itself). SendAddresses and KillMember go where the member runs.
// Invariants: a bundle leaves this process only inside the TLS connection to the host its
// member is placed on; every member the launcher was told started is reported ended exactly
// once, by its host or here when its host is lost.
// Rule: every member ends when the formation ends; the launcher learns of every member's end
// (docs/hosts.md §The lifeline across hosts).
#pragma once

#include "actors/ports.hpp"
#include "messages/credentials/formation_bundle.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <map>
#include <string>

namespace mur {

using host_route_actor =
  spawn_port::extend<caf::reacts_to<spawned_atom, std::string, std::int64_t>, caf::reacts_to<MemberExited>,
                     caf::reacts_to<caf::put_atom, std::string, caf::actor>, caf::reacts_to<beat_atom>>;

struct HostRouteSetup {
  spawn_port local;                          // this machine's spawn port (owned: ended with the route)
  std::map<std::string, std::string> placed; // member → host, for members placed on another host
  std::string formation_id;
  std::chrono::milliseconds period{1000};
  int lost_after = 3;                        // periods a beat may go unanswered
  std::map<std::string, DoorTls> door_tls;   // member → its door's certificate and key (PEM), added to its bundle
};

host_route_actor spawn_host_route(caf::actor_system& sys, HostRouteSetup setup);

} // namespace mur
