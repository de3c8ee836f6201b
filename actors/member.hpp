// member.hpp — the member actor: one session, its door, its egress, its tasks, and how it ends.
//
// State table:
//   serving      --get_atom (its door asked for, the first time)--> hand it out, then start the
//                                     launch task (--task): a task that ends at once cannot end
//                                     the member before whoever serves the door holds it
//   serving      --lifeline_atom-->  record formation_ended FIRST (a delegated child: spawner_ended
//                                     {spawned_by}), then wind down
//   serving      --sigterm_atom-->   wind down (a second one ends at once)
//   serving      --deadline_atom-->  wind down
//   serving      --ended_atom (door: after_task exit, nothing left)--> end
//   any          --(task_end_atom, view) from the door--> tell the supervisor; the launch task's
//                                     ending is also told as a TaskEvent, once
//   winding down --door drained-->   session_end, tell the supervisor the exit code, quit
// Wind-down: the door accepts nothing more, refuses queued tasks, cancels the running one (its
// outstanding calls become abandoned); then `session_end`.
// Delegation depth: a member at max_delegation_depth (a child of a child of a child, by default)
// is offered no delegate tool, even when its capsule's spawn.allow lists capsules; a delegation it
// tries anyway is a tool error naming the limit, and its session_start says so. So a capsule
// that delegates to itself, or a chain that recurses, stops there.
// Invariants: `formation_ended` is the first thing recorded after the lifeline closes; a lifeline
// that closes after a SIGTERM records nothing; the supervisor hears the exit code exactly once.
// Rule: on a closed lifeline a member records formation_ended first, then cancels what it was
// doing and winds its session down (docs/spec/door.md §The lifeline).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/door.hpp"
#include "actors/id_clock.hpp"
#include "actors/ports.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/vocabulary/token_price.hpp"
#include "messages/vocabulary/trace_capture.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <optional>
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
  std::optional<TokenPrice> price;                 // inference.price, written into session_start for the trace's readers
  SpendLimits limits;                              // the manifest's `limits`: what each task may spend
  int max_depth = 0;                               // limits.max_depth (0: the roster's alone)
  bool ask_operator = false;                       // capabilities.ask_operator: its tasks may ask a person
  std::chrono::milliseconds input_timeout{3'600'000}; // lifecycle.input_timeout_secs
  bool threaded = false;                           // lifecycle.conversation: threaded (its door keeps conversations)
  TraceCapture capture = TraceCapture::meta;       // trace.capture (content: each task's transcript as a blob)
  std::string system_prompt;                       // the capsule's own (inference.system_prompt[_file])
  std::chrono::milliseconds call_deadline{600'000};
  std::string launch_task;                         // --task: runs first, as the operator's task
  trace_port trace;
  network_port network;                            // the door-call port (for the egress)
  model_port model;
  supervisor_port supervisor;                      // told each task's end, TaskEvent{launch task}
                                                   // once it ended, then (ended_atom, member, code)
  IdClockSpec ids;                                 // for its door and its tasks
  std::string spawned_by;                          // a delegated child: its parent's session ("" otherwise);
                                                   // its lifeline is then the spawner lifeline
  std::string delegation_id;                       // a delegated child: the dlg_ id it serves
  int delegation_depth = 0;                        // a delegated child: how deep (its grant's depth); else 0
  int max_delegation_depth = 3;                    // a member this deep delegates no further
  std::vector<SpawnTarget> spawnable;              // capabilities.spawn.allow, in its order
  child_port children;                             // starts them (null: no delegation)
  live_port live;                                  // the formation's live ledger (null: no ceiling)
  tool_port tools;                                 // the capsule's own tools (null: none)
  std::vector<OwnTool> own_tools;                  // what `tools` listed at start, offered to the model
};

// Answers (caf::get_atom) with its door actor; accepts (address_atom, vector<MemberText>).
member_handle spawn_member(caf::actor_system& sys, MemberSetup setup);

} // namespace mur
