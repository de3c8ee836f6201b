// member.hpp — the member actor: one session, its door, its egress, its tasks, and how it ends.
//
// State table:
//   serving      --lifeline_atom-->  record formation_ended FIRST, then wind down
//   serving      --sigterm_atom-->   wind down (a second one ends at once)
//   serving      --deadline_atom-->  wind down
//   serving      --ended_atom (door: after_task exit, nothing left)--> end
//   winding down --door drained-->   session_end, tell the supervisor the exit code, quit
// Wind-down: the door accepts nothing more, refuses queued tasks, cancels the running one (its
// outstanding calls become abandoned); then `session_end`.
// Invariants: `formation_ended` is the first thing recorded after the lifeline closes; a lifeline
// that closes after a SIGTERM records nothing; the supervisor hears the exit code exactly once.
// Seed: "A member whose lifeline closes records formation_ended in its trace, cancels the work
// it had in flight, since nothing remains to receive the result, and ends its session in order."
#pragma once

#include "actors/door.hpp"
#include "messages/formation_bundle.hpp"

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mur {

struct MemberSetup {
  std::string session_id;
  std::string capsule_name;
  std::string capsule_version;
  std::string formation_id;                        // "" outside a formation
  std::string member;                              // roster name ("" outside a formation)
  std::shared_ptr<const FormationBundle> bundle;   // null outside a formation
  AcceptancePolicy acceptance;
  bool authenticated = false;
  bool accepts_peer_tasks = false;
  bool allows_localhost = false;
  int max_turns = 10;
  std::chrono::milliseconds call_deadline{600'000};
  std::string launch_task;                         // --task: runs first, as the operator's task
  caf::actor trace;                                // the trace port
  caf::actor network;                              // the door-call port (for the egress)
  caf::actor model;                                // the model port
  caf::actor supervisor;                           // told TaskEvent{launch task} when it ended, then
                                                   // (ended_atom, member, int32 exit code)
};

// Answers (caf::get_atom) with its door actor; accepts (address_atom, vector<MemberText>).
caf::actor spawn_member(caf::actor_system& sys, MemberSetup setup);

} // namespace mur
