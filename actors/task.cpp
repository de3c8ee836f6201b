// task.cpp — the session loop of one task (see task.hpp for the state table).
#include "actors/task.hpp"

#include "actors/atoms.hpp"
#include "actors/call_round.hpp"
#include "actors/cancel_report.hpp"
#include "actors/continuation.hpp"
#include "actors/task_own_tools.hpp"
#include "actors/task_questions.hpp"
#include "actors/task_state.hpp"
#include "actors/task_texts.hpp"
#include "actors/task_trace_fields.hpp"
#include "actors/transcript_blob.hpp"
#include "messages/vocabulary/cancel_confirm.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/sha256.hpp"
#include "messages/vocabulary/text_cut.hpp"
#include "messages/vocabulary/trace_context.hpp"
#include "messages/wire/child_spawn.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/runtime_tools.hpp"
#include "messages/wire/task_progress.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

namespace mur {

bool sent_by_member(const TaskView& task) { return task.submitter.rfind("member:", 0) == 0; }

namespace {

using namespace task_detail;

// A model asked again and again with tool results, never ending its turn, fails the task here.
constexpr int max_requests_per_turn = 16;

// `member_call`, or `delegation` for a call to a sub-capsule.
void trace_member_call(task_ptr self, const RoundCall& c, const std::string& status, std::int64_t duration_ms,
                       const std::string& output, bool truncated, bool delivered) {
  trace(self, is_capsule_target(c.member) ? "delegation" : "member_call",
        call_fields(self->state.setup.task.id, c, capped(c.task_text), status, duration_ms,
                    ms_between(c.made, self->clock().now()), output, truncated, delivered));
}

// task_end; under trace.capture: content with the task's transcript, a blob it names by its sha256.
void trace_end(task_ptr self, nlohmann::json end) {
  auto& st = self->state;
  if (st.setup.capture != TraceCapture::content || !st.setup.trace) return trace(self, "task_end", end);
  std::string blob = transcript_blob(st.setup.task.id, st.setup.member, st.transcript);
  end["transcript_sha256"] = sha256_hex(blob);
  end["transcript_bytes"] = blob.size();
  self->send(st.setup.trace, TraceEvent{"task_end", end.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
             std::move(blob));
}

// Ends the task: abandons what is still out, records what arrived but was never delivered,
// traces task_end, sends the one TaskFinished, quits. Every path to it is a tail call, and a
// task that quit handles nothing more: no phase comes after it.
void finish(task_ptr self, TaskFinished done) {
  auto& st = self->state;
  const auto now = self->clock().now();
  // A canceled task cancels what it has out, and each callee its own: cancel follows the tree.
  const bool cancels = done.exit_status == TaskExit::canceled;
  for (const auto& c : st.round.calls()) {
    if (c.ended) {
      const std::string status = c.ended->status == CallStatus::completed ? "abandoned" : to_string(c.ended->status);
      trace_member_call(self, c, status, c.ended->duration_ms, c.ended->output, c.truncated, false);
    } else {
      // Canceling: every call still out was asked to cancel already (cancel), confirmed or not.
      if (st.setup.egress && st.phase != TaskPhase::canceling) self->send(st.setup.egress, AbandonCall{c.call_id, cancels, 0});
      trace_member_call(self, c, cancels ? "canceled" : "abandoned", ms_between(c.made, now), "", false, false);
    }
  }
  st.round.clear();
  done.task_id = st.setup.task.id;
  // A threaded member's completed task: its exchange joins its caller's conversation (the door keeps it).
  if (st.setup.threaded && done.state == TaskState::completed)
    done.exchange.assign(st.transcript.begin() + static_cast<std::ptrdiff_t>(1 + st.history_messages), st.transcript.end());
  done.usage = st.own;
  done.usage += st.below;
  nlohmann::json end{{"task_id", st.setup.task.id}, {"exit_status", to_string(done.exit_status)},
                     {"turns", st.turns_answered}, {"state", state_word(done.state)}};
  if (done.state == TaskState::completed) end["answer"] = capped(done.answer);
  else end["reason"] = capped(done.status_text);
  if (cancels) end["canceled_by"] = st.canceled_by;
  add_usage_fields(end, st.own, done.usage, st.budget.effective());
  if (!done.no_answer_below.empty()) {
    nlohmann::json below = nlohmann::json::array();
    for (const auto& n : done.no_answer_below) below.push_back({{"member", n.member}, {"status", n.status}});
    end["no_answer_below"] = std::move(below);
  }
  trace_end(self, std::move(end));
  if (st.setup.door) {
    self->send(st.setup.door, std::move(done));
    // CAF 0.17 keeps a monitor's entry on the monitored actor until it is removed or that actor
    // ends: without this the door would hold one entry for every task it ever ran.
    self->demonitor(st.setup.door.address());
  }
  self->quit();
}

void fail(task_ptr self, const std::string& text, TaskExit exit_status) {
  TaskFinished done;
  done.state = TaskState::failed;
  done.status_text = text;
  done.exit_status = exit_status;
  finish(self, std::move(done));
}

void complete(task_ptr self, const std::string& reply) {
  TaskFinished done;
  done.state = TaskState::completed;
  done.status_text = "completed";
  done.exit_status = TaskExit::ok;
  done.answer = reply;
  // An empty answer after a refused end-without-answer says so in its status: it is not an
  // answer that happens to be empty.
  if (reply.empty() && !self->state.ending_refused.empty())
    done.status_text = task_texts::empty_after_refused_ending(self->state.ending_refused);
  auto report = self->state.ledger.report();
  if (!report.empty()) {
    if (!done.answer.empty()) done.answer += "\n\n";
    done.answer += task_texts::answered_without(report);
    done.no_answer_below = std::move(report);
  }
  finish(self, std::move(done));
}

void end_without_answer_now(task_ptr self) {
  TaskFinished done;
  done.state = TaskState::failed;
  done.status_text = *self->state.ending;
  done.no_answer = true;
  done.no_answer_below = self->state.ledger.report();
  done.exit_status = TaskExit::no_answer;
  finish(self, std::move(done));
}

// The caller's deadline passed: the task stops (its calls are abandoned), since nobody waits.
// Its own max_wall_secs passed first: the budget is exhausted.
void time_out(task_ptr self) {
  if (!self->state.wall_limit.empty())
    return fail(self, "budget exhausted: " + self->state.wall_limit + " reached", TaskExit::budget_exhausted);
  TaskFinished done;
  done.state = TaskState::failed;
  done.status_text = "timed out: the caller stops waiting after " + std::to_string(self->state.setup.task.deadline_ms) +
                     " ms, so the task stopped";
  done.exit_status = TaskExit::timed_out;
  finish(self, std::move(done));
}

// What the task and the tasks below it spent so far.
Usage spent(task_ptr self) {
  Usage u = self->state.own;
  u += self->state.below;
  return u;
}

// A limit is reached: the task ends, naming it and its use.
void exhaust(task_ptr self, const LimitHit& hit) {
  fail(self, exhausted_text(hit, self->state.budget), TaskExit::budget_exhausted);
}

// Before `n` more of `s`: the limit they would pass, if any.
std::optional<LimitHit> over_budget(task_ptr self, Spend s, std::int64_t n) {
  return would_pass(self->state.budget.effective(), spent(self), s, n);
}

// How long this task's caller still waits (0: it set no deadline).
std::int64_t remaining_ms(task_ptr self) {
  auto& st = self->state;
  if (!st.deadline) return 0;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*st.deadline - self->clock().now()).count();
  return std::max<std::int64_t>(1, left);
}

void enter(task_ptr self, TaskPhase phase);

// Once canceled, what is still in flight (a model's response, a tool's result, a CallStart)
// changes nothing: the task only waits for its calls' confirmations.
bool canceling(task_ptr self) { return self->state.phase == TaskPhase::canceling; }

// Ends the canceled task with what its calls undid: the answer to the canceller lists every
// task canceled below it, and names each callee that did not confirm in time.
void finish_canceled(task_ptr self) {
  auto& st = self->state;
  std::vector<std::string> silent; // the bound passed without their confirmation
  for (const auto& id : st.cancels_out)
    if (const RoundCall* c = st.round.find(id)) silent.push_back(c->member);
  CancelReport report = cancel_report(st.undone, silent, own_wait_ms(st.cancel_within_ms));
  TaskFinished done;
  done.state = TaskState::canceled;
  done.exit_status = TaskExit::canceled;
  done.status_text = task_texts::canceled(st.canceled_by, report.below, report.unconfirmed);
  done.no_answer_below = std::move(report.below);
  finish(self, std::move(done));
}

// Canceled: every call it has out is canceled (each callee cancels its own in turn), and the
// task waits, within a bound, for their confirmations before it ends.
void cancel(task_ptr self, std::string by, std::int64_t within_ms) {
  auto& st = self->state;
  if (st.phase == TaskPhase::canceling) return; // canceled already: the first cancel's bound holds
  st.canceled_by = std::move(by);
  st.cancel_within_ms = std::clamp<std::int64_t>(within_ms > 0 ? within_ms : default_confirm_ms, min_confirm_ms, max_confirm_ms);
  if (st.setup.egress)
    for (const auto& c : st.round.calls())
      if (!c.ended) {
        st.cancels_out.insert(c.call_id);
        self->send(st.setup.egress, AbandonCall{c.call_id, true, callee_confirm_ms(st.cancel_within_ms)});
      }
  if (st.cancels_out.empty()) return finish_canceled(self);
  enter(self, TaskPhase::canceling);
  self->delayed_send(self, std::chrono::milliseconds(own_wait_ms(st.cancel_within_ms)), confirm_atom_v);
}

// A canceled call's confirmation (or its own end, which crossed the cancel): the last one ends the task.
void confirmed(task_ptr self, const std::string& call_id, std::optional<CallCanceled> undone) {
  auto& st = self->state;
  if (!st.cancels_out.erase(call_id)) return;
  if (undone) st.undone.push_back(std::move(*undone));
  if (st.cancels_out.empty()) finish_canceled(self);
}

task_handle::behavior_type in_phase(task_ptr self, TaskPhase phase);

void enter(task_ptr self, TaskPhase phase) {
  self->state.phase = phase;
  self->become(in_phase(self, phase));
}

void on_response(task_ptr self, ModelTurn t);

// Asks the model with the whole transcript (the current turn, the current step).
void ask_model(task_ptr self) {
  auto& st = self->state;
  if (auto hit = spent_before_request(st.budget.effective(), spent(self))) return exhaust(self, *hit);
  ++st.own.model_requests;
  ModelTurnRequest req{st.setup.task.id, st.setup.task.request, st.turn,     st.step,
                       st.setup.member,  st.setup.callees,       st.setup.capsules, st.answers,
                       st.continuation,  st.transcript,          static_cast<std::int32_t>(st.history_messages),
                       st.setup.own_tools, st.setup.ask_operator,
                       format_traceparent(st.trace_id, chat_span_id(st.setup.task.id, st.turn, st.step))};
  self->request(st.setup.model, caf::infinite, std::move(req))
    .then([=](ModelTurn& t) { on_response(self, std::move(t)); },
          [=](caf::error& err) {
            if (canceling(self)) return;
            fail(self, "the model did not answer: " + self->system().render(err), TaskExit::failed);
          });
}

// Each turn offers the capsule's own tools as the hub lists them now (a server that said
// notifications/tools/list_changed was listed again), then asks the model.
void ask(task_ptr self) {
  enter(self, TaskPhase::asking);
  if (!self->state.setup.tools) return ask_model(self);
  self->request(self->state.setup.tools, caf::infinite, tools_atom_v)
    .then(
      [=](ToolsListed& l) {
        if (canceling(self)) return;
        if (l.code.empty()) self->state.setup.own_tools = std::move(l.tools);
        ask_model(self);
      },
      [=](caf::error&) { // the hub is gone: its tools answer as tool errors
        if (!canceling(self)) ask_model(self);
      });
}

// Starts the next turn, if max_turns leaves one.
void next_turn(task_ptr self) {
  auto& st = self->state;
  if (st.turn + 1 >= st.setup.max_turns)
    return fail(self, "the task used all " + std::to_string(st.setup.max_turns) + " model turns without an answer",
                TaskExit::max_turns_reached);
  ++st.turn;
  st.step = 0;
  ask(self);
}

// Continuing: every outcome of the round in ONE continuation, which starts the next turn.
void deliver(task_ptr self) {
  auto& st = self->state;
  std::vector<CallEnded> outcomes;
  std::size_t delegations = 0;
  for (const RoundCall* c : st.round.arrived()) {
    outcomes.push_back(*c->ended);
    if (is_capsule_target(c->member)) ++delegations;
    auto it = std::find_if(st.answers.begin(), st.answers.end(),
                           [&](const MemberAnswer& a) { return a.member == c->member; });
    MemberAnswer latest{c->member, to_string(c->ended->status), task_texts::answer_text(*c->ended)};
    if (it != st.answers.end())
      *it = std::move(latest);
    else
      st.answers.push_back(std::move(latest));
    st.ledger.record(*c->ended);
    trace_member_call(self, *c, to_string(c->ended->status), c->ended->duration_ms, c->ended->output, c->truncated, true);
  }
  st.continuation = build_continuation(outcomes, st.member_sent);
  st.transcript.push_back(TranscriptMessage::user(st.continuation));
  ++st.continuations;
  const auto now = self->clock().now();
  trace(self, "task_continued",
        {{"task_id", st.setup.task.id},
         {"continuation_number", st.continuations},
         {"member_calls", outcomes.size() - delegations},
         {"delegations", delegations},
         {"waited_ms", st.wait_started ? ms_between(*st.wait_started, now) : 0},
         {"turns_remaining", std::max(0, st.setup.max_turns - st.turn - 1)}});
  st.round.clear();
  st.wait_started.reset();
  next_turn(self);
}

// Turn over: wait for calls still out, deliver what arrived, or — with nothing to wait for —
// `answer` is the task's answer. A script turn that ended with tool calls that were all refused
// has no answer: the next turn gets the tool results.
void turn_over(task_ptr self, const std::string& answer, bool with_tools) {
  auto& st = self->state;
  if (st.round.any_out()) {
    if (!st.wait_started) st.wait_started = self->clock().now();
    enter(self, TaskPhase::waiting_on_calls);
  } else if (!st.round.empty()) {
    deliver(self);
  } else if (with_tools) {
    next_turn(self);
  } else {
    complete(self, answer);
  }
}

// Every CallStart of the response is in: the tool results join the transcript; then the task
// ends without an answer, the model is asked again in the same turn, or the turn is over.
void after_starts(task_ptr self) {
  auto& st = self->state;
  if (canceling(self)) return;
  for (std::size_t i = 0; i < st.tools.calls.size(); ++i)
    st.transcript.push_back(TranscriptMessage::tool_result(st.tools.calls[i].id, std::move(st.tools.results[i])));
  const bool asks_again = st.tools.asks_again;
  st.tools = ToolRound{};
  if (st.ending) return end_without_answer_now(self);
  if (!asks_again) return turn_over(self, "", true);
  if (st.step + 1 >= max_requests_per_turn)
    return fail(self, "the model called tools in " + std::to_string(max_requests_per_turn) +
                        " requests in a row without ending its turn", TaskExit::max_turns_reached);
  ++st.step;
  ask(self);
}

// A call refused with nothing sent: traced, and the tool error the model reads.
std::string refuse_call(task_ptr self, const std::string& member, const std::string& cause, std::string text) {
  nlohmann::json f{{"task_id", self->state.setup.task.id}};
  if (is_capsule_target(member)) f["capsule"] = capsule_of(member);
  else f["member"] = member;
  f["cause"] = cause;
  f["reason"] = text;
  trace(self, "call_refused", f);
  return text;
}

void on_start(task_ptr self, const std::string& call_id, const std::string& member, CallStart s) {
  auto& st = self->state;
  s.call_id = call_id;
  RoundCall* c = st.round.find(call_id);
  if (c == nullptr) return;
  auto on_result = c->on_result;
  if (s.status == CallStatus::refused) { // the egress refused it (no address, no egress, …): nothing was sent
    st.round.drop(call_id);
    if (canceling(self)) confirmed(self, call_id, std::nullopt); // nothing ran there
    return on_result(refuse_call(self, member, s.cause.empty() ? "egress" : s.cause, task_texts::tool_error(s.message)), true);
  }
  c->member_task_id = s.member_task_id;
  if (s.status == CallStatus::started)
    on_result(task_texts::call_started(s, member), false);
  else if (s.status == CallStatus::busy)
    on_result(task_texts::call_busy(s, member), false);
  else
    on_result(task_texts::call_ended_at_once(s, member, st.member_sent), false);
}

// call-member, or delegate (`member` is then "capsule:<name>"). A refusal is returned at once (a
// tool error; nothing was sent); otherwise the call goes to the egress and its result reaches
// `on_result` when its CallStart does.
std::optional<std::string> make_call(task_ptr self, const std::string& member, const std::string& text,
                                     std::function<void(std::string, bool)> on_result) {
  auto& st = self->state;
  const bool child = is_capsule_target(member);
  if (st.ending) return refuse_call(self, member, "ending", task_texts::call_while_ending(member));
  if (child) {
    const auto& capsules = st.setup.capsules;
    if (std::find(capsules.begin(), capsules.end(), capsule_of(member)) == capsules.end())
      return refuse_call(self, member, "not_spawnable", task_texts::not_spawnable(capsule_of(member), capsules));
  } else {
    const auto& callees = st.setup.callees;
    if (std::find(callees.begin(), callees.end(), member) == callees.end())
      return refuse_call(self, member, "not_callable", task_texts::not_callable(member, callees));
  }
  if (!child) {
    const auto& above = st.setup.task.chain;
    ChainRule rule = st.setup.chain_rule;
    if (st.setup.limits.own_max_depth > 0) rule.max_depth = std::min(rule.max_depth, st.setup.limits.own_max_depth);
    switch (judge_call(rule, above, st.setup.member, member)) {
    case ChainVerdict::ok: break;
    case ChainVerdict::cycle:
      return refuse_call(self, member, "cycle", task_texts::call_cycle(chain_words(chain_below(above, st.setup.member), member)));
    case ChainVerdict::depth:
      return refuse_call(self, member, "depth",
                         task_texts::call_too_deep(static_cast<int>(above.size()) + 1, rule.max_depth));
    }
  }
  if (const RoundCall* p = st.round.of_member(member))
    return refuse_call(self, member, "call_outstanding", task_texts::still_pending(member, p->call_id));
  if (child && st.round.children_out() >= max_children_at_once)
    return refuse_call(self, member, "too_many_children", task_texts::too_many_children(max_children_at_once));
  RoundCall c;
  c.task_text = text;
  if (!st.ids) st.ids.emplace(st.setup.ids, self->clock(), st.setup.task.id + "/task");
  c.call_id = st.ids->mint(child ? ids::delegation : ids::member_call);
  c.member = member;
  c.made = self->clock().now();
  c.on_result = std::move(on_result);
  const std::string call_id = c.call_id;
  st.round.claim(std::move(c));
  ++st.own.calls;
  self->request(st.setup.egress, caf::infinite, CallMember{st.setup.task.id, call_id, member, text,
                                                           child ? std::vector<std::string>{}
                                                                 : chain_below(st.setup.task.chain, st.setup.member),
                                                           remaining_ms(self), left_after(st.budget.effective(), spent(self)),
                                                           st.setup.task.context_id, st.trace_id})
    .then([=](CallStart& s) { on_start(self, call_id, member, std::move(s)); },
          [=](caf::error& err) {
            on_start(self, call_id, member,
                     CallStart{call_id, CallStatus::refused, "", "the call could not be made (" + self->system().render(err) +
                                                           "); nothing was sent."});
          });
  return std::nullopt;
}

// end-without-answer: its result, and whether it was accepted (the task ends once the
// response's other results are in, or the agent program's turn has ended).
std::pair<std::string, bool> end_without_answer(task_ptr self, const std::string& reason) {
  auto& st = self->state;
  std::string refusal;
  const auto& calls = st.round.calls();
  if (st.setup.callees.empty() && st.setup.capsules.empty()) refusal = task_texts::ewa_no_callees();
  else if (!st.member_sent) refusal = task_texts::ewa_not_member_sent();
  else if (!calls.empty()) refusal = task_texts::ewa_call_out(calls.front().member, calls.front().call_id);
  else if (reason.find_first_not_of(" \t\r\n") == std::string::npos) refusal = task_texts::ewa_blank_reason();
  else if (st.ending) refusal = task_texts::ewa_already_ending();
  if (!refusal.empty()) {
    trace(self, "end_without_answer_refused", {{"task_id", st.setup.task.id}, {"reason", capped(reason)}, {"refusal", refusal}});
    st.ending_refused = refusal;
    return {refusal, false};
  }
  st.ending = reason;
  return {task_texts::ewa_accepted(), true};
}

void trace_inference(task_ptr self, const ModelTurn& t) {
  trace(self, "inference", inference_fields(self->state.setup.task.id, self->state.turn, self->state.step, t));
}


// Offering: each tool call of the response is answered at once or once its CallStart is in.
void offer_calls(task_ptr self, std::vector<ToolCall> calls, bool asks_again) {
  auto& st = self->state;
  // A response asking for more than the budget leaves: nothing of it runs.
  std::int64_t own_tools = 0, member_calls = 0;
  for (const auto& c : calls) {
    if (is_own_tool(st.setup, c.name)) ++own_tools;
    else if (c.name == tool_name::call_member || c.name == tool_name::delegate) ++member_calls;
  }
  if (own_tools > 0)
    if (auto hit = over_budget(self, Spend::tool_calls, own_tools)) return exhaust(self, *hit);
  if (member_calls > 0)
    if (auto hit = over_budget(self, Spend::calls, member_calls)) return exhaust(self, *hit);
  enter(self, TaskPhase::offering);
  st.tools.asks_again = asks_again;
  st.tools.calls = std::move(calls);
  st.tools.results.assign(st.tools.calls.size(), std::string());
  for (std::size_t i = 0; i < st.tools.calls.size(); ++i) {
    if (is_own_tool(st.setup, st.tools.calls[i].name)) { // the capsule's own: its result, in its slot
      ++st.tools.starts_awaited;
      use_own_tool(self, st.tools.calls[i], [self, i](ToolReply r) {
        auto& st = self->state;
        st.tools.results.at(i) = std::move(r.text);
        if (--st.tools.starts_awaited == 0) after_starts(self);
      });
      continue;
    }
    const ToolUse use = read_use(st.setup, st.tools.calls[i]);
    auto& result = st.tools.results[i];
    switch (use.kind) {
    case ToolUse::Kind::call_member:
    case ToolUse::Kind::delegate: {
      const std::string target = use.kind == ToolUse::Kind::delegate ? capsule_target(use.capsule) : use.member;
      auto now = make_call(self, target, use.task, [self, i](std::string text, bool) {
        auto& st = self->state;
        st.tools.results.at(i) = std::move(text);
        if (--st.tools.starts_awaited == 0) after_starts(self);
      });
      if (now) result = std::move(*now);
      else ++st.tools.starts_awaited;
      break;
    }
    case ToolUse::Kind::end_without_answer: result = end_without_answer(self, use.reason).first; break;
    case ToolUse::Kind::ask_operator:
      ++st.tools.starts_awaited;
      ask_person(self, use.reason, [self, i](std::string text, bool) {
        auto& st = self->state;
        st.tools.results.at(i) = std::move(text);
        if (--st.tools.starts_awaited == 0) after_starts(self);
      });
      break;
    case ToolUse::Kind::error: result = use.error; break;
    }
  }
  if (st.tools.starts_awaited == 0) after_starts(self);
}

void on_response(task_ptr self, ModelTurn t) {
  auto& st = self->state;
  if (canceling(self)) return;
  // An agent program's turn that ended without waiting for its question's answer: nobody waits for it.
  close_own_questions(self);
  if (st.step == 0) ++st.turns_answered;
  st.own += response_tokens(t.stats.prompt_tokens, t.stats.completion_tokens, t.stats.reasoning_tokens);
  trace_inference(self, t);
  if (t.fails) return fail(self, t.failure, TaskExit::failed);
  st.transcript.push_back(TranscriptMessage::assistant(t.text, t.tool_calls));
  if (!t.tool_calls.empty()) return offer_calls(self, std::move(t.tool_calls), t.asks_again_after_tools);
  if (st.ending) return end_without_answer_now(self); // an agent program's end-without-answer, made during its turn
  turn_over(self, t.text, false);
}

// A tool call of an agent program, during its turn: answered with its result once known.
caf::result<ToolReply> on_tool_request(task_ptr self, const ToolRequest& req) {
  auto& st = self->state;
  const bool own = is_own_tool(st.setup, req.call.name);
  const bool calls = req.call.name == tool_name::call_member || req.call.name == tool_name::delegate;
  if (own || calls)
    if (auto hit = over_budget(self, own ? Spend::tool_calls : Spend::calls, 1)) {
      const std::string text = exhausted_text(*hit, st.budget);
      exhaust(self, *hit);
      return ToolReply{"tool error: " + text + "; the task ends.", true};
    }
  if (own) {
    auto rp = self->make_response_promise<ToolReply>();
    use_own_tool(self, req.call, [rp](ToolReply r) mutable { rp.deliver(std::move(r)); });
    return rp;
  }
  const ToolUse use = read_use(st.setup, req.call);
  trace(self, "tool_call", {{"task_id", st.setup.task.id}, {"turn", st.turn}, {"tool", req.call.name}});
  switch (use.kind) {
  case ToolUse::Kind::error: return ToolReply{use.error, true};
  case ToolUse::Kind::end_without_answer: {
    auto [text, accepted] = end_without_answer(self, use.reason);
    return ToolReply{text, !accepted};
  }
  case ToolUse::Kind::ask_operator: {
    auto rp = self->make_response_promise<ToolReply>();
    ask_person(self, use.reason, [rp](std::string text, bool is_error) mutable { rp.deliver(ToolReply{std::move(text), is_error}); });
    return rp;
  }
  case ToolUse::Kind::call_member:
  case ToolUse::Kind::delegate: break;
  }
  auto rp = self->make_response_promise<ToolReply>();
  const std::string target = use.kind == ToolUse::Kind::delegate ? capsule_target(use.capsule) : use.member;
  auto now = make_call(self, target, use.task,
                       [rp](std::string text, bool is_error) mutable { rp.deliver(ToolReply{std::move(text), is_error}); });
  if (now) rp.deliver(ToolReply{std::move(*now), true});
  return rp;
}

// A call's outcome joins the round (cut at 64 KiB); false if it is not a call of the round.
bool arrive(task_ptr self, CallEnded e) {
  const Usage used = e.usage;
  const bool truncated = cut_output(e.output);
  const std::string call_id = e.call_id;
  if (!self->state.round.arrive(std::move(e), truncated)) return false;
  close_question(self, call_id); // a callee that ended asks nothing any more
  self->state.below += used; // the callee's spending is the caller's: charged once, on arrival
  return true;
}

task_handle::behavior_type in_phase(task_ptr self, TaskPhase phase) {
  auto tool = [=](const ToolRequest& req) { return on_tool_request(self, req); };
  auto text = [=](const ModelText& m) { // a streaming model's text, on to the door's subscribers
    if (self->state.setup.door) self->send(self->state.setup.door, m);
  };
  auto canceled = [=](cancel_atom) { cancel(self, "operator", 0); };
  auto canceled_by = [=](cancel_atom, const std::string& by, std::int64_t within_ms) { cancel(self, by, within_ms); };
  auto timed_out = [=](deadline_atom) { time_out(self); };
  auto unasked = [](const CallCanceled&) {}; // only a canceling task asks for one
  auto unarmed = [](confirm_atom) {};
  auto answered = [=](const TaskAnswer& a) { on_answer(self, a); };
  auto callee_asks = [=](const CallAsks& c) { on_call_asks(self, c); };
  auto unanswered = [=](input_timeout_atom, const std::string& id) { on_input_timeout(self, id); };
  switch (phase) {
  case TaskPhase::asking:
  case TaskPhase::offering: // an outcome that arrives before the turn is over waits for it
    return {[=](const CallEnded& e) { arrive(self, e); }, tool, text, canceled, canceled_by, timed_out, unasked, unarmed,
            answered, callee_asks, unanswered};
  case TaskPhase::waiting_on_calls:
    break;
  case TaskPhase::canceling:
    return {[=](const CallEnded& e) { // its end crossed the cancel: nothing is left to cancel there
              arrive(self, e);
              confirmed(self, e.call_id, std::nullopt);
            },
            [=](const ToolRequest&) { return ToolReply{"tool error: the task was canceled.", true}; },
            [](const ModelText&) {}, [](cancel_atom) {}, [](cancel_atom, const std::string&, std::int64_t) {},
            [](deadline_atom) {}, [=](const CallCanceled& c) { confirmed(self, c.call_id, c); },
            [=](confirm_atom) { finish_canceled(self); }, [](const TaskAnswer&) {}, [](const CallAsks&) {},
            [](input_timeout_atom, const std::string&) {}};
  }
  return {[=](const CallEnded& e) { // the last outcome continues the task
            if (arrive(self, e) && !self->state.round.any_out()) deliver(self);
          },
          tool, text, canceled, canceled_by, timed_out, unasked, unarmed, answered, callee_asks, unanswered};
}

task_handle::behavior_type task_actor(task_ptr self, TaskSetup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  st.member_sent = sent_by_member(st.setup.task);
  if (st.setup.door) {
    self->send(st.setup.door, TaskWorking{st.setup.task.id});
    // A task never outlives its door: with the door gone nobody can read or cancel it.
    self->monitor(st.setup.door);
    self->set_down_handler([=](const caf::down_msg&) { self->quit(); });
  }
  nlohmann::json start{{"task_id", st.setup.task.id},
                       {"context_id", st.setup.task.context_id},
                       {"source", "a2a"},
                       {"origin", st.member_sent ? "peer" : "user"},
                       {"submitter", st.setup.task.submitter},
                       {"text", capped(st.setup.task.request)}};
  if (!st.setup.task.chain.empty()) start["chain"] = st.setup.task.chain;
  const TaskLimits& limits = st.setup.limits;
  st.budget = BudgetSources{limits.own.budget, st.member_sent ? Budget{} : limits.formation.budget, st.setup.task.budget};
  if (!st.budget.effective().bounds_nothing()) start["budget"] = budget_fields(st.budget.effective());
  // Its own wall limit (the capsule's, or the formation's for a task no member sent) is its
  // deadline when its caller waits longer.
  std::int64_t wait_ms = st.setup.task.deadline_ms;
  for (const auto& [secs, whose] : {std::pair{limits.own.max_wall_secs, "the capsule's"},
                                     std::pair{st.member_sent ? 0 : limits.formation.max_wall_secs, "the formation's"}})
    if (secs > 0 && (wait_ms == 0 || secs * 1000 < wait_ms)) {
      wait_ms = secs * 1000;
      st.wall_limit = "max_wall_secs (" + std::to_string(secs) + " s, " + whose + ")";
    }
  if (st.setup.task.deadline_ms > 0) start["deadline_ms"] = st.setup.task.deadline_ms;
  if (wait_ms > 0) {
    st.deadline = self->clock().now() + std::chrono::milliseconds(wait_ms);
    self->delayed_send(self, std::chrono::milliseconds(wait_ms), deadline_atom_v);
  }
  if (st.setup.threaded) start["history_messages"] = st.setup.history.size();
  // Its trace: the one its submitter sent (a caller's execute_tool span is its parent), or a new one.
  const auto incoming = parse_traceparent(st.setup.task.traceparent);
  st.trace_id = incoming ? incoming->trace_id : trace_id_of_task(st.setup.task.id);
  start["trace_id"] = st.trace_id;
  start["span_id"] = task_span_id(st.setup.task.id);
  if (incoming) start["parent_span_id"] = incoming->span_id;
  trace(self, "task_start", start);
  st.transcript.push_back(TranscriptMessage::system(st.setup.system_text));
  // A threaded member continues its caller's conversation in this context: the model sees it.
  st.history_messages = st.setup.history.size();
  st.transcript.insert(st.transcript.end(), std::make_move_iterator(st.setup.history.begin()),
                       std::make_move_iterator(st.setup.history.end()));
  st.setup.history.clear();
  st.transcript.push_back(TranscriptMessage::user(st.setup.task.request));
  ask(self);
  return in_phase(self, TaskPhase::asking);
}

} // namespace

task_handle spawn_task(caf::actor_system& sys, TaskSetup setup) { return sys.spawn(task_actor, std::move(setup)); }

} // namespace mur
