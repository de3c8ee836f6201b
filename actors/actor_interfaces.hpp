// actor_interfaces.hpp — the typed interfaces of the six actors, and the narrower views of them
// that other actors are handed (a task sees its door only as where it reports).
//
// Invariant: every message an actor accepts is in its interface, so sending it anything else
// fails to compile; timers an actor sets itself are in its interface too (a typed actor can
// only be sent what it declares), each marked "(own timer)". All six actors are typed, except
// the member side of a simulated lifeline (spawn_lifeline_watch), which receives no message at
// all, only the down messages of what it monitors.
// Naming: `door_handle` is the typed handle of the door actor; inside door.cpp, `door_actor` is
// its stateful implementation (door_handle::stateful_base<DoorState>), and so on for each actor.
// Rule: every rule is kept by one of six typed actors, unchanged whether the ports behind them
// are real or simulated (docs/spec/choices.md §Actors and ports).
#pragma once

#include "actors/atoms.hpp"
#include "actors/ports.hpp"
#include "messages/vocabulary/formation_event.hpp"
#include "messages/wire/a2a_task.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/operator_question.hpp"
#include "messages/wire/operator_question.hpp"
#include "messages/wire/task_progress.hpp"

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

// -- task ----------------------------------------------------------------------------------------
// What a task reports to (its door).
// ModelText: the answer's text as the model streams it, for the task's subscribers.
// TaskAsks / TaskResumed: the task waits for a person's answer (INPUT_REQUIRED), or no longer.
using task_owner = caf::typed_actor<caf::reacts_to<TaskWorking>, caf::reacts_to<TaskFinished>, caf::reacts_to<ModelText>,
                                    caf::reacts_to<TaskAsks>, caf::reacts_to<TaskResumed>>;
// Where an egress delivers a call's end (the calling task).
// CallCanceled: what a canceled call undid, when the task asked for confirmation (AbandonCall).
// CallAsks: the callee's task waits for a person's answer (or no longer does).
using call_listener = caf::typed_actor<caf::reacts_to<CallEnded>, caf::reacts_to<CallCanceled>, caf::reacts_to<CallAsks>>;
// ModelText: pushed by a streaming model port while a response arrives.
// ToolRequest: a tool call an agent program makes during its turn (transport: process).
// deadline_atom: (own timer) its caller's deadline passed.
// (cancel_atom, by, within_ms): canceled by `operator`, `caller:<member>` or `session_ending`,
// whose canceller waits within_ms for the answer (0: default_confirm_ms); cancel_atom alone: by
// the operator. confirm_atom: (own timer) the callees' confirmations are no longer waited for.
// TaskAnswer: the door passes on the answer to the question it shows. (input_timeout_atom, id):
// (own timer) its own question `id` waited lifecycle.input_timeout_secs.
using task_handle = call_listener::extend<caf::reacts_to<cancel_atom>, caf::reacts_to<cancel_atom, std::string, std::int64_t>,
                                          caf::reacts_to<confirm_atom>, caf::reacts_to<deadline_atom>, caf::reacts_to<ModelText>,
                                          caf::replies_to<ToolRequest>::with<ToolReply>, caf::reacts_to<TaskAnswer>,
                                          caf::reacts_to<input_timeout_atom, std::string>>;

// -- egress --------------------------------------------------------------------------------------
// What a task asks of its member's egress.
// AnswerCall: a person's answer for the callee's question, sent down to its task.
using call_port = caf::typed_actor<caf::replies_to<CallMember>::with<CallStart>, caf::reacts_to<AbandonCall>,
                                   caf::reacts_to<AnswerCall>>;
// What one call asks of its egress: the callee's door url ("" when the callee ended as its
// lifecycle says), answered as soon as the address line names it.
using address_book = caf::typed_actor<caf::replies_to<address_atom, std::string>::with<std::string>>;
// The egress routes each call to an actor of its own (actors/egress_call.hpp).
using egress_handle = call_port::extend_with<address_book>::extend<caf::reacts_to<address_atom, std::vector<MemberText>>>;
// One call: the CallMember the egress delegates to it (it answers CallStart itself), the task's
// AbandonCall, what the callee's door pushes while the call follows its task, and its timers.
using egress_call_handle = call_port::extend_with<stream_listener>::extend<
  caf::reacts_to<retry_atom>,     // (own timer) offer again, or the next GetTask
  caf::reacts_to<deadline_atom>>; // (own timer) the call deadline passed

// -- door ----------------------------------------------------------------------------------------
// What a door tells its owner (the member): session/stop, "nothing left and after_task: exit",
// and each task whose actor reported its end.
using door_owner = caf::typed_actor<caf::reacts_to<sigterm_atom>, caf::reacts_to<ended_atom>,
                                    caf::reacts_to<task_end_atom, TaskView>, caf::reacts_to<TaskAsks>>;
using door_handle = task_owner::extend<caf::replies_to<DoorRequest>::with<DoorReply>,
                                      caf::replies_to<winddown_atom>::with<std::int32_t>,
                                      caf::replies_to<caf::get_atom>::with<std::vector<TaskView>>>;

// -- member --------------------------------------------------------------------------------------
using member_handle = door_owner::extend<caf::replies_to<caf::get_atom>::with<door_handle>,
                                        caf::reacts_to<address_atom, std::vector<MemberText>>,
                                        caf::reacts_to<lifeline_atom>, caf::reacts_to<deadline_atom>>;

// -- launcher ------------------------------------------------------------------------------------
using launcher_handle = spawn_listener::extend<caf::replies_to<caf::get_atom>::with<std::string>,
                                              caf::reacts_to<sigterm_atom, std::int32_t>,
                                              caf::reacts_to<retry_atom, std::string>,     // (own timer) probe again
                                              caf::reacts_to<deadline_atom, LauncherDeadline>>; // formation, grace or fault

// -- lifeline (launcher side) --------------------------------------------------------------------
using lifelines_handle = caf::typed_actor<caf::reacts_to<caf::put_atom, std::string, lifeline_end>,
                                         caf::reacts_to<caf::close_atom, std::string>,
                                         caf::reacts_to<caf::close_atom>>;

} // namespace mur
