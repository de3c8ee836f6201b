// task_state.hpp — what one task actor holds, and how it writes its trace: shared by the files
// of the task actor (actors/task.cpp, task_questions.cpp, task_own_tools.cpp) and no one else.
//
// Invariant: only a task actor's own handlers touch its TaskActorState (CAF runs them one at a
// time); trace events are sent, never written here, and every text in one is cut like an answer.
// Rule: the task keeps the whole transcript and its calls' outcomes (actors/task.hpp).
#pragma once

#include "actors/call_round.hpp"
#include "actors/no_answer_ledger.hpp"
#include "actors/question_queue.hpp"
#include "actors/task.hpp"
#include "messages/vocabulary/task_budget.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"

#include <caf/actor_clock.hpp>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mur::task_detail {

// The phases of task.hpp's table in which the task waits for a message; each is a behaviour,
// switched with `become`. "Turn over" and "continuing" await nothing: they are decisions taken at
// once (turn_over, deliver). Finished is no phase: the task quits after its one TaskFinished.
enum class TaskPhase {
  asking,           // a model request is out
  offering,         // the latest response's calls await their CallStart
  waiting_on_calls, // the turn is over; calls are still out
  canceling,        // canceled: the calls it had out are being canceled; waits for their confirmations
};

// The latest response's tool calls, while their CallStarts come in.
struct ToolRound {
  std::vector<ToolCall> calls;
  std::vector<std::string> results;  // slot by slot
  int starts_awaited = 0;
  bool asks_again = false;           // the model wants the results in the same turn
};

struct TaskActorState {
  TaskSetup setup;
  bool member_sent = false;
  TaskPhase phase = TaskPhase::asking;
  Transcript transcript;                 // system, the earlier exchanges of its context (threaded), the task,
                                         // then every response, result and continuation
  std::size_t history_messages = 0;      // how many of the earlier exchanges' messages follow the system message
  int turn = 0;                          // the current turn, 0-based (a continuation starts the next)
  int step = 0;                          // requests made in the current turn
  int turns_answered = 0;                // turns the model has answered (for task_end)
  int continuations = 0;
  ToolRound tools;
  CallRound round;                       // claimed, outstanding or arrived-but-undelivered
  std::optional<caf::actor_clock::time_point> wait_started;
  std::vector<MemberAnswer> answers;     // latest outcome per member
  std::string continuation;              // the last continuation message
  NoAnswerLedger ledger;
  std::optional<std::string> ending;     // end-without-answer accepted: its reason
  std::string ending_refused;            // the latest end-without-answer refusal, if any
  std::optional<IdClock> ids;            // made at the first call: most tasks never mint
  std::optional<caf::actor_clock::time_point> deadline; // when its caller stops waiting (task.deadline_ms)
  std::string canceled_by;               // who canceled it (operator, caller:<member>, session_ending)
  std::int64_t cancel_within_ms = 0;     // canceling: how long its canceller waits for it
  std::set<std::string> cancels_out;     // canceling: calls whose CallCanceled has not come
  std::vector<CallCanceled> undone;      // canceling: what each canceled call undid, in arrival order
  BudgetSources budget;                  // its limits: the capsule's, the formation's, the caller's remaining
  Usage own;                             // what it spent itself
  Usage below;                           // what its callees reported spending (charged on arrival)
  std::string wall_limit;                // set: its deadline is its own max_wall_secs (these words name it)
  QuestionQueue questions;               // open questions for a person: its own and its callees'
  int asked = 0;                         // its own questions so far (their ids)
  std::string trace_id;                  // its trace: its submitter's, or its own (messages/vocabulary/trace_context.hpp)
  static inline const char* name = "mur.task";
};

using task_ptr = task_handle::stateful_pointer<TaskActorState>;

std::int64_t ms_between(caf::actor_clock::time_point a, caf::actor_clock::time_point b);
void trace(task_ptr self, const char* type, const nlohmann::json& fields);
// Cuts `text` to the output cap (at a UTF-8 boundary) and marks the cut.
bool cut_output(std::string& text);
// A text as the trace keeps it: cut like answers are.
std::string capped(std::string text);

} // namespace mur::task_detail
