// egress.hpp — the egress actor: the calls of one member, each routed to an actor of its own.
//
// The egress keeps only what every call of the member shares: the callees' addresses (and which
// callees ended as their lifecycle says), the refusals made before any call starts, and the route
// from a call id to its call actor (actors/egress_call.hpp holds each call's states and timers).
//   CallMember  --callee not in the bundle (a delegation: not in spawn.allow)--> refused at once,
//                                               a tool error naming whom it may call
//   CallMember  --otherwise-->                  a call actor is spawned (linked: it dies with the
//                                               egress), the CallMember delegated to it; it answers
//                                               CallStart itself and sends CallEnded to the task
//   (address_atom, lines)                       addresses learnt; calls waiting for one are answered
//   (address_atom, member) from a call          its url at once if known ("" once the callee
//                                               ended), else as soon as a line names it
//   AbandonCall                                 passed to that call's actor
//   a call actor's down message                 its route is forgotten
// Per call (egress_call.hpp): waiting_address → offering ⇄ busy → following → ended, with the
// call deadline, the 10 s address wait, busy re-offers from 250 ms doubling to 4 s (+0–250 ms
// jitter), following by stream or polling, and abandonment.
// Invariants: the model never sees the token, the URL or the port; each call answers its
// CallMember once (CallStart) and ends at most once (CallEnded); busy is the only refusal that
// is offered again; a call's timers die with its actor.
// Rule: busy comes back at once and the task is offered again; the caller's own network.allow
// must hold `localhost` (docs/spec/door.md §Calling another member's door).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/egress_call.hpp"
#include "actors/ports.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/wire/child_spawn.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace mur {

struct EgressSetup {
  std::string member;                              // this member
  std::shared_ptr<const FormationBundle> bundle;   // its callees and their tokens
  bool allows_localhost = false;                   // capabilities.network.allow lists localhost
  std::chrono::milliseconds call_deadline{600'000};// lifecycle.delegation_deadline_secs
  std::chrono::milliseconds address_wait{10'000};  // FORMATION_ADDRESS_WAIT
  network_port network;                            // the door-call port
  trace_port trace;
  std::vector<SpawnTarget> spawnable;              // capabilities.spawn.allow
  child_port children;                             // starts them (null: no delegation)
  live_port live;                                  // the formation's live ledger (null: no ceiling)
};

egress_handle spawn_egress(caf::actor_system& sys, EgressSetup setup);

} // namespace mur
