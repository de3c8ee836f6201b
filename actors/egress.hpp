// egress.hpp — the egress actor: every call-member call of one member, from offer to answer.
//
// Per call (state table):
//   new       --callee not in the bundle-->            refused (tool error naming whom it may call)
//   new       --address unknown-->                     waiting for address (≤ 10 s)
//   waiting   --address line--> check egress;  --10 s--> refused (the address never arrived)
//   check     --network.allow lacks localhost-->       refused (with the fix)
//   check     --ok-->                                  offering (token attached by the port)
//   offering  --REJECTED + busy-->                     busy: re-offer after 250 ms doubling to 4 s
//                                                      (+0–250 ms jitter) until the call deadline
//   offering  --held (SUBMITTED/WORKING)-->            following (SubscribeToTask, and GetTask every
//                                                      3 s beside it to see that the door still
//                                                      answers; GetTask every 500 ms if the stream fails)
//   offering  --other REJECTED / error-->              ended rejected / failed
//   following --terminal TaskEvent-->                  ended: completed, failed, canceled, rejected,
//                                                      no_answer (noAnswer), with noAnswerBelow
//   busy      --call deadline (last answer busy)-->    ended rejected (it stayed busy)
//   offering  --call deadline (no answer)-->           ended timed_out (it did not answer the offer)
//   following --call deadline-->                       ended timed_out (it took the task and did not
//                                                      finish it; "its door stopped answering" when
//                                                      its last request failed; not canceled)
//   any       --connection refused-->                  ended unreachable at once ("the connection to
//                                                      <m>'s door was refused": its process ended)
//   any       --2 other transport failures in a row--> ended unreachable, naming the reason (a
//                                                      held call: "<m> stopped answering while it
//                                                      held the task"; a SIGSTOPped callee is seen
//                                                      ≈ 13 s after it stops: 3 s + 2 × 5 s)
//   new       --callee ended (address line entry
//               with no url: it ended as its
//               lifecycle says)-->                     ended unreachable, nothing sent ("a member
//                                                      that has ended")
//   any       --AbandonCall-->                         dropped; a task the callee took from an
//                                                      offer in flight is canceled
// A delegation (CallMember to "capsule:<name>", an entry of spawn.allow) first asks the child
// port for its own child process (starting child → offering with the child's url and operator
// credential; a child that cannot start ends the call failed); from then on it is a call like
// any other, without the egress allow-list (the child is the member's own process on loopback)
// and without the address wait. Its end, or its abandonment (after CancelTask of a task the
// child holds), ends the child (EndChild).
// Invariants: the model never sees the token, the URL or the port; each call answers its
// CallMember once (CallStart) and ends at most once (CallEnded); busy is the only refusal that
// is offered again.
// Seed: "A member with no room for it turns it away busy; the call returns at once, and the
// runtime keeps offering it the task." / "The caller's egress: the caller's own
// capabilities.network.allow lists localhost".
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/ports.hpp"
#include "messages/child_spawn.hpp"
#include "messages/formation_bundle.hpp"

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
};

egress_handle spawn_egress(caf::actor_system& sys, EgressSetup setup);

// The busy re-offer delay before offer n+1 (n ≥ 1): 250 ms doubling to 4 s, plus a jitter of
// 0–250 ms derived from the call id and n (so a simulation replays it exactly).
std::chrono::milliseconds reoffer_delay(const std::string& call_id, int offers_so_far);

} // namespace mur
