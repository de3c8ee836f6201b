// task.hpp — the task actor: one per task, the session loop over a model port.
//
// The task keeps the whole transcript (system message, the task, every response, tool result and
// continuation) and hands all of it to the model port with every request. A threaded member's
// task (lifecycle.conversation: threaded) puts the earlier exchanges its door handed it
// (TaskSetup.history) between the system message and the task, and once completed hands its own
// exchange (all after the system message and that history) back in TaskFinished.
// Named phases (TaskPhase in task.cpp; each a behaviour, switched with `become`; see
// docs/ARCHITECTURE.md, "Named states"). "turn over" and "continuing" are decisions taken at
// once, not phases: nothing is awaited there.
//   asking            --response with tool calls-->   offering (each call-member awaits its CallStart;
//                                                     end-without-answer and tool errors answer at once)
//   offering          --all results in, ewa accepted--> finished: failed, no answer
//   offering          --all results in, a chat model--> asking, same turn, with the tool results
//                                                     (at most 16 requests per turn)
//   offering          --all results in, a script turn--> turn over (below)
//   asking            --response without tool calls--> turn over
//   turn over         --calls still out-->            waiting_on_calls
//   turn over         --answers arrived, none out-->  continuing (below)
//   turn over         --nothing called-->             finished: completed with the response's text
//   turn over         --a script turn, all refused--> asking, next turn, with the tool results
//   waiting_on_calls  --last CallEnded-->             continuing: ONE user message with every answer
//                                                     fenced as coming from its member → asking, next turn
//   asking, offering  --CallEnded-->                  the same phase; the outcome waits for the turn's end
//   asking            --response fails-->             finished: failed
//   next turn         --turn == max_turns-->          finished: failed (max_turns_reached)
//   any               --cancel_atom-->                canceling: each call still out is canceled at its
//                                                     callee (AbandonCall asking confirmation)
//   canceling         --every CallCanceled, or the bound--> finished: canceled, naming what was canceled
//                                                     below and who did not confirm (cancel_confirm.hpp)
//   any               --deadline_atom-->              finished: failed, timed_out (the caller's deadline, task.deadline_ms,
//                                                     passed: nobody waits; outstanding calls abandoned), or
//                                                     budget_exhausted when the task's own max_wall_secs came first
//   asking, offering  --a limit reached-->            finished: failed, budget_exhausted (before a model request:
//                                                     no tokens or requests left; before tool calls or calls that
//                                                     would pass max_tool_calls / max_calls)
//   any               --its door is down-->           quits (nothing can read or cancel it)
// Questions for a person (actors/question_queue.hpp) are open beside the phases, in any of them
// but canceling: an ask-operator call's result waits for its answer as a call-member's waits for
// its CallStart; a callee's question (CallAsks) is shown at the task's door too, and its answer
// (TaskAnswer) sent down (AnswerCall). While a question is shown, the door says INPUT_REQUIRED.
//   any               --ModelText-->                  the same phase; passed on to the door
//   finished          = TaskFinished sent once, then the actor quits: nothing is handled after it
// Delegations (the `delegate` tool) are calls to the target "capsule:<name>": the same phases,
// the same one continuation, fenced as `capsule:<name>`; at most max_children_at_once run at once.
// Invariants: one outstanding call per member (and per capsule) per task (while a callee's
// answer is undelivered, another call to it is a tool error and sends nothing:
// actors/call_round.hpp); different members never block each other; every answer is delivered
// fenced as `member:<name>` (`capsule:<name>`); a call that ends with no answer is named, with
// the members further down that gave none; a call to a member on the task's chain (or deeper
// than max_depth) is refused before anything is sent (messages/vocabulary/call_chain.hpp), and
// every call carries the chain with this member at its end. Every call carries what the task has
// left of its budget, and each callee's usage is charged to the task when its outcome arrives.
// Rule: one call per callee at a time, outcomes fenced and delivered in one continuation
// (docs/spec/formation.md §How a member gives another work); a delegated child is not a
// member (docs/spec/choices.md §Sub-capsules).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/id_clock.hpp"
#include "actors/ports.hpp"
#include "messages/vocabulary/call_chain.hpp"
#include "messages/vocabulary/task_budget.hpp"
#include "messages/vocabulary/trace_capture.hpp"
#include "messages/wire/a2a_task.hpp"

#include <caf/fwd.hpp>

#include <string>
#include <vector>

namespace mur {

struct TaskSetup {
  TaskView task;                      // id, context_id, request (the text), submitter
  std::string member;                 // this member's name ("" outside a formation)
  std::vector<std::string> callees;   // whom call-member may name, roster order; empty ⇒ no tool
  std::vector<std::string> capsules;  // whom delegate may name (spawn.allow order); empty ⇒ no tool
  int max_turns = 10;
  std::string system_text;            // the system message (runtime_tools.hpp: system_message)
  model_port model;
  call_port egress;                   // replies CallStart to CallMember, later sends CallEnded
                                      // (delegations too: member "capsule:<name>")
  trace_port trace;
  task_owner door;                    // receives TaskWorking, TaskFinished
  IdClockSpec ids;                    // call ids (mcl_), stream "<task id>/task"
  tool_port tools;                    // the capsule's own tools (null: none)
  std::vector<OwnTool> own_tools;     // offered to the model beside the runtime's (each turn: as `tools` lists them then); calls go to `tools`
  std::string no_delegation;          // set: a delegate call is this tool error (the depth limit, actors/member.hpp)
  ChainRule chain_rule;               // the roster's allow_cycles and max_depth (judged against task.chain)
  TaskLimits limits;                  // the capsule's own and the formation's (messages/vocabulary/task_budget.hpp)
  bool ask_operator = false;          // ask-operator is offered (capabilities.ask_operator)
  std::int64_t input_timeout_ms = 3'600'000; // how long its own question waits (lifecycle.input_timeout_secs)
  bool threaded = false;              // lifecycle.conversation: threaded — a completed task hands back its exchange
  TraceCapture capture = TraceCapture::meta; // trace.capture: content — its transcript is a blob task_end names
  Transcript history;                 // threaded: the earlier exchanges of its caller's conversation in its
                                      // context, put between the system message and the task (conversation_store.hpp)
};

// True when a task's submitter credential is a formation member (`member:<name>`).
bool sent_by_member(const TaskView& task);

// Spawns a task actor; it starts its first turn at once and exits after TaskFinished.
task_handle spawn_task(caf::actor_system& sys, TaskSetup setup);

} // namespace mur
