// egress_call.hpp — one call of a member's egress, from its CallMember to its end: an actor of
// its own, spawned (and linked) by the egress, whose timers die with it.
//
// Named states (CallPhase; one behaviour each, switched with `become`; see docs/ARCHITECTURE.md,
// "Named states"):
//   new              --CallMember, a delegation-->           starting_child: a slot of the formation's
//                                                            live ledger first (TakeLiveSlot, when it
//                                                            has one); none free: refused (cause
//                                                            live_ceiling), nothing started; else
//                                                            StartChild, which hands the slot to the
//                                                            child port (it gives it back once the
//                                                            child has ended or did not start)
//   new              --CallMember, address known-->          check (below)
//   new              --CallMember, address not known-->      waiting_address (asks the egress; the
//                                                            wait is that request's timeout, ≤ 10 s)
//   waiting_address  --the url--> check;  --the wait ran out--> refused (nothing sent)
//   check            --network.allow lacks localhost-->      refused (with the fix)
//   check            --the callee ended (no url)-->          ended unreachable, nothing sent
//   check            --ok-->                                 offering
//   starting_child   --ChildStarted-->                       offering (the child's door and credential)
//   offering         --REJECTED + busy-->                    busy (offer again after reoffer_delay)
//   offering         --one transport failure-->              retrying (offer again after 500 ms)
//   busy, retrying   --retry_atom (own timer)-->             offering
//   offering         --held-->                               following (SubscribeToTask, GetTask
//                                                            every 3 s beside it)
//   following        --the stream is lost or refused-->      polling (GetTask every 500 ms)
//   following, polling --terminal task-->                    ended with the callee's outcome
//   any              --deadline_atom (own timer)-->          ended, named by the state it ended in
//   offering, starting_child --AbandonCall, or the deadline--> abandoning: the answer in flight is
//                                                            undone (a held task canceled, a started
//                                                            child ended), then the actor quits
//   any other        --AbandonCall-->                        quits (a child's held task is canceled)
//   following, polling --AbandonCall asking confirmation-->  canceling: CancelTask (confirmWithinMs)
//                                                            on the held task, its answer awaited
//   canceling        --the answer, or no answer in time-->   CallCanceled (canceled, ended or
//                                                            unconfirmed), then the actor quits
//   ended            = the actor quits, after its CallEnded (never after an AbandonCall)
// Invariants: the CallStart is answered once and the CallEnded sent at most once, both by this
// actor; no timer outlives the state that set it except the deadline, which every state handles;
// an abandoned call sends nothing to its task, except the one CallCanceled a cancel that asks for
// confirmation gets, however the call is found (not_held when no task was taken).
// Rule: a busy callee answers at once and the egress re-offers until the call deadline
// (docs/spec/door.md §Calling another member's door).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/ports.hpp"
#include "messages/credentials/formation_token.hpp"
#include "messages/wire/door_call.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace mur {

enum class CallPhase { fresh, waiting_address, starting_child, offering, busy, retrying, following, polling, abandoning, canceling };

struct EgressCallSetup {
  std::shared_ptr<const FormationToken> token; // a member call: this edge's credential
  std::string child_version;                   // a delegation: the exact version spawn.allow names
  std::optional<std::string> address;          // the callee's door url, "" once it ended; none: ask
  bool allows_localhost = false;               // capabilities.network.allow lists localhost
  std::chrono::milliseconds call_deadline{600'000};
  std::chrono::milliseconds address_wait{10'000};
  address_book egress;                         // asked for the address, and whether the callee ended
  network_port network;
  trace_port trace;
  child_port children;
  live_port live;                              // a delegation's slot (null: no ceiling)
};

// Spawns a call linked to `egress`; it waits for the CallMember the egress delegates to it.
egress_call_handle spawn_egress_call(caf::local_actor* egress, EgressCallSetup setup);

// The busy re-offer delay before offer n+1 (n ≥ 1): 250 ms doubling to 4 s, plus a jitter of
// 0–250 ms derived from the call id and n (so a simulation replays it exactly).
std::chrono::milliseconds reoffer_delay(const std::string& call_id, int offers_so_far);

} // namespace mur
