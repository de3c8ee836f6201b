// egress_call.cpp — one call of the egress as named states (see egress_call.hpp for the table).
#include "actors/egress_call.hpp"

#include "actors/atoms.hpp"
#include "actors/callee_context.hpp"
#include "actors/state_behavior.hpp"
#include "messages/vocabulary/cancel_confirm.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/vocabulary/text_cut.hpp"
#include "messages/vocabulary/trace_context.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/trace_event.hpp"
#include "messages/wire/transport_failure.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

namespace mur {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr auto poll_interval = 500ms;
constexpr auto request_timeout = 5s;
constexpr auto liveness_interval = 3s; // a held call's GetTask beside its stream: is the door still there?

struct CallState {
  EgressCallSetup setup;
  CallPhase phase = CallPhase::fresh;
  CallMember req;
  call_listener task;                        // who asked; receives CallEnded
  caf::typed_response_promise<CallStart> start; // answered once
  std::string url;                           // the door the requests go to
  Bearer bearer;                             // and the credential they carry
  int offers = 0;
  int transport_failures = 0;
  bool last_busy = false;                    // the last offer's answer was busy
  std::string last_failure;                  // the last transport failure's reason ("" ⇒ none)
  std::optional<caf::actor_clock::time_point> tick_due; // following, polling: the next GetTask
  std::string member_task_id;
  caf::actor_clock::time_point began;
  bool callers_deadline = false;             // the calling task's own deadline came before the call deadline
  bool child_started = false;                // a delegation whose child runs: ended with the call
  std::string child_session;
  bool slot_held = false;                    // a delegation's slot of the live ledger, until StartChild hands it on
  std::int64_t confirm_ms = 0;               // a cancel that asks for confirmation within this bound
  bool confirm_sent = false;                 // its CallCanceled is sent
  Usage usage;                               // what the callee's task spent, as its answer says
  std::string question;                      // the callee's task waits for input with this question ("" ⇒ not)
  std::string answered;                      // the question last answered: a view still showing it is older than the answer
  int answers_sent = 0;                      // a person's answers sent down to it
  static inline const char* name = "mur.egress_call";
};

using call_actor = egress_call_handle::stateful_base<CallState>;
using behavior = egress_call_handle::behavior_type;

bool is_child(const call_actor* self) { return is_capsule_target(self->state.req.member); }

std::int64_t ms_since(call_actor* self, caf::actor_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(self->clock().now() - t).count();
}

void trace(call_actor* self, const char* type, json fields) {
  if (self->state.setup.trace) self->send(self->state.setup.trace, TraceEvent{type, fields.dump()});
}

behavior in_phase(call_actor* self, CallPhase phase);

void enter(call_actor* self, CallPhase phase) {
  self->state.phase = phase;
  self->become(in_phase(self, phase));
}

void answer_start(call_actor* self, CallStatus status, const std::string& message, const std::string& cause = "") {
  auto& st = self->state;
  if (st.start.pending()) st.start.deliver(CallStart{st.req.call_id, status, st.member_task_id, message, cause});
}

// Tells a canceling task what canceling this call undid (once).
void report_canceled(call_actor* self, const std::string& outcome, std::vector<NoAnswer> below = {},
                     const std::string& detail = "") {
  auto& st = self->state;
  if (st.confirm_ms <= 0 || st.confirm_sent) return;
  st.confirm_sent = true;
  self->send(st.task, CallCanceled{st.req.call_id, st.req.member, outcome, st.member_task_id, std::move(below), detail});
}

// The call is over for this actor: its child (if it started one) ends with it; a cancel that
// waits for confirmation and found no task taken hears so.
void quit(call_actor* self) {
  report_canceled(self, "not_held");
  if (self->state.child_started && self->state.setup.children)
    self->send(self->state.setup.children, EndChild{self->state.req.call_id});
  if (self->state.slot_held) self->send(self->state.setup.live, FreeLiveSlot{self->state.req.call_id});
  self->quit();
}

// Tells the task how the call ended (its CallStart first, if not yet given).
void report_end(call_actor* self, CallStatus status, std::string output, std::vector<NoAnswer> below = {}) {
  auto& st = self->state;
  cut_to(output, answer_cap, answer_cut_marker); // never half a UTF-8 character
  answer_start(self, status, output);
  self->send(st.task, CallEnded{st.req.call_id, st.req.member, status, output, st.member_task_id, std::move(below),
                                ms_since(self, st.began), st.usage});
}

void end(call_actor* self, CallStatus status, std::string output, std::vector<NoAnswer> below = {}) {
  report_end(self, status, std::move(output), std::move(below));
  quit(self);
}

// Refuses the call before anything was sent: a tool error, and no CallEnded.
void refuse(call_actor* self, const std::string& message, const std::string& cause = "") {
  answer_start(self, CallStatus::refused, message, cause);
  quit(self);
}

// A task the callee holds for an abandoned call is taken back; its answer is of no interest.
void cancel_held(call_actor* self) {
  auto& st = self->state;
  if (st.member_task_id.empty()) return;
  DoorRequest cancel;
  cancel.method = DoorMethod::cancel_task;
  cancel.task_id = st.member_task_id;
  caf::anon_send(st.setup.network, DoorCallTo{st.url}, st.bearer, cancel);
}

std::vector<NoAnswer> below_of(const TaskView& v) {
  static const std::vector<std::string> statuses{"failed", "canceled", "rejected", "timed_out",
                                                 "unreachable", "abandoned", "no_answer", "unconfirmed"};
  std::vector<NoAnswer> out;
  for (const auto& n : v.no_answer_below)
    if (out.size() < max_no_answer_below &&
        (is_member_name(n.member) || (is_capsule_target(n.member) && is_member_name(capsule_of(n.member)))) &&
        std::find(statuses.begin(), statuses.end(), n.status) != statuses.end())
      out.push_back(n);
  return out;
}

// The held task is canceled with confirmation: CancelTask says how long this call waits
// (confirmWithinMs), and its answer, or none within that bound, is what the task hears.
void cancel_and_confirm(call_actor* self) {
  auto& st = self->state;
  if (st.member_task_id.empty()) return quit(self);
  enter(self, CallPhase::canceling);
  DoorRequest cancel;
  cancel.method = DoorMethod::cancel_task;
  cancel.task_id = st.member_task_id;
  cancel.deadline_ms = st.confirm_ms;
  const auto bound = std::chrono::milliseconds(st.confirm_ms + hop_margin_ms / 4);
  self->request(st.setup.network, bound, DoorCallTo{st.url}, st.bearer, cancel)
    .then(
      [=](const DoorReply& r) {
        if (r.ok() && r.task.state == TaskState::canceled) report_canceled(self, "canceled", below_of(r.task));
        else if (r.ok() || r.rpc_code == rpc::task_not_cancelable || r.rpc_code == rpc::task_not_found)
          report_canceled(self, "ended");
        else
          report_canceled(self, "unconfirmed", {},
                          r.refused() ? "its door refused the cancel: " + to_string(r.refusal) : "its door answered " + r.rpc_message);
        quit(self);
      },
      [=](const caf::error& err) {
        const TransportFault fault = transport_fault_of(err, self->system());
        report_canceled(self, "unconfirmed", {},
                        fault.kind == TransportFailure::refused
                          ? "its door is gone"
                          : "no answer within " + std::to_string(self->state.confirm_ms) + " ms");
        quit(self);
      });
}

// The callee's task reached a terminal state: the call ends with its outcome.
void end_from(call_actor* self, const TaskView& v) {
  const std::string& m = self->state.req.member;
  self->state.usage = v.usage; // charged to the calling task with the outcome
  if (v.state == TaskState::completed)
    end(self, CallStatus::completed, v.answer, below_of(v));
  else if (v.state == TaskState::failed && v.no_answer)
    end(self, CallStatus::no_answer, v.status_text.empty() ? m + " ended its task without an answer" : v.status_text,
        below_of(v));
  else
    end(self, call_status_of(v.state), v.status_text.empty() ? m + "'s task ended " + state_word(v.state) : v.status_text);
}

auto ask_callee(call_actor* self, const DoorRequest& req) {
  const auto& st = self->state;
  return self->request(st.setup.network, request_timeout, DoorCallTo{st.url}, st.bearer, req);
}

std::string ended_text(const std::string& m) {
  return m + " has ended as its lifecycle says (after_task: exit): it takes no more tasks, and calls to it "
             "reach a member that has ended";
}

// -- following and polling ----------------------------------------------------------------------

// Arms the next GetTask after `delay`, unless one is due sooner (so the stream's loss, a failure
// and the liveness check never run two polls side by side).
void schedule_tick(call_actor* self, caf::timespan delay) {
  auto& st = self->state;
  const auto due = self->clock().now() + delay;
  if (st.tick_due && *st.tick_due <= due) return;
  st.tick_due = due;
  self->delayed_send(self, delay, retry_atom_v);
}

void transport_failed(call_actor* self, const caf::error& err);

// A view of the callee's task that has not ended: whether it waits for a person's answer is
// passed up to the calling task (which shows the question too), once per change.
void observe(call_actor* self, const TaskView& v) {
  auto& st = self->state;
  const bool asking = v.state == TaskState::input_required && !v.status_text.empty();
  if (!asking) st.answered.clear();
  if (asking && v.status_text == st.answered) return; // read before the answer reached it
  if (asking && v.status_text != st.question) {
    st.question = v.status_text;
    self->send(st.task, CallAsks{st.req.call_id, st.req.member, st.question, true});
  } else if (!asking && !st.question.empty()) {
    st.question.clear();
    self->send(st.task, CallAsks{st.req.call_id, st.req.member, "", false});
  }
}

// A person's answer to the callee's question: SendMessage on its task, with this call's credential.
void send_answer(call_actor* self, const AnswerCall& a) {
  auto& st = self->state;
  if (st.member_task_id.empty()) return;
  DoorRequest answer;
  answer.method = DoorMethod::send_message;
  answer.peer_origin = !is_child(self);
  answer.return_immediately = true;
  answer.task_id = st.member_task_id;
  answer.text = a.text;
  answer.message_id = "msg_" + st.req.call_id.substr(4) + "_answer" + std::to_string(++st.answers_sent);
  answer.question = a.question; // its door refuses the answer if it asks something else by now
  st.answered = a.question;
  st.question.clear(); // it asks again (or something else) only if its door says so
  ask_callee(self, answer).then(
    [=](const DoorReply& r) {
      trace(self, "member_call_answered", {{"task_id", self->state.req.task_id}, {"call_id", self->state.req.call_id},
                                           {"member", self->state.req.member}, {"delivered", r.ok()}});
    },
    [=](const caf::error&) {
      trace(self, "member_call_answered", {{"task_id", self->state.req.task_id}, {"call_id", self->state.req.call_id},
                                           {"member", self->state.req.member}, {"delivered", false}});
    });
}

void poll(call_actor* self) {
  DoorRequest get;
  get.method = DoorMethod::get_task;
  get.task_id = self->state.member_task_id;
  ask_callee(self, get).then(
    [=](const DoorReply& r) {
      auto& st = self->state;
      if (!r.ok()) {
        end(self, CallStatus::failed,
            st.req.member + "'s door stopped answering for the task: " + (r.refused() ? to_string(r.refusal) : r.rpc_message));
        return;
      }
      st.transport_failures = 0;
      st.last_failure.clear();
      if (is_terminal(r.task.state)) return end_from(self, r.task);
      observe(self, r.task);
      schedule_tick(self, st.phase == CallPhase::polling ? caf::timespan(poll_interval) : caf::timespan(liveness_interval));
    },
    [=](const caf::error& err) { transport_failed(self, err); });
}

// A GetTask timer fired: the one due now polls; one that a sooner tick superseded does nothing.
void on_tick(call_actor* self) {
  auto& st = self->state;
  if (!st.tick_due || self->clock().now() < *st.tick_due) return;
  st.tick_due.reset();
  poll(self);
}

// Follows the callee's task with SubscribeToTask; polls every 500 ms if the subscription fails.
void follow(call_actor* self) {
  enter(self, CallPhase::following);
  DoorRequest sub;
  sub.method = DoorMethod::subscribe_to_task;
  sub.task_id = self->state.member_task_id;
  ask_callee(self, sub).then(
    [=](const DoorReply& r) {
      if (!r.ok()) {
        enter(self, CallPhase::polling);
        schedule_tick(self, poll_interval);
      } else if (is_terminal(r.task.state)) {
        end_from(self, r.task);
      } else {
        observe(self, r.task);
        schedule_tick(self, liveness_interval);
      }
    },
    [=](const caf::error& err) {
      enter(self, CallPhase::polling);
      transport_failed(self, err);
    });
}

// -- offering -------------------------------------------------------------------------------------

void offer(call_actor* self);
void proceed(call_actor* self, const std::string& url);

DoorRequest send_request(const call_actor* self) {
  const CallState& st = self->state;
  DoorRequest r;
  r.method = DoorMethod::send_message;
  r.peer_origin = !is_capsule_target(st.req.member); // a child takes its task from its operator, not a peer
  r.return_immediately = true;                      // the call returns as soon as the member holds the task
  r.text = st.req.text;
  r.chain = st.req.chain;
  r.budget = st.req.budget; // what the calling task has left: the callee spends no more
  // One trace across members: the callee's task is a child of this call's execute_tool span.
  if (!st.req.trace_id.empty()) r.traceparent = format_traceparent(st.req.trace_id, call_span_id(st.req.call_id));
  if (r.peer_origin) { // how long this call still waits: the callee stops then (the call extension)
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(self->clock().now() - st.began);
    r.deadline_ms = std::max<std::int64_t>(1, (st.setup.call_deadline - waited).count());
  }
  r.message_id = "msg_" + st.req.call_id.substr(4);
  // A member's calls to one callee from one context share a context there (a threaded callee
  // continues it); a delegated child serves one task and gets none.
  if (r.peer_origin && !st.req.context_id.empty()) r.context_id = callee_context(st.req.context_id, st.req.member);
  return r;
}

// A refused connection ends the call at once (nothing listens: the callee's process has ended;
// the egress says whether it ended as its lifecycle says), unless the callee was restarted before
// it held the task: then the offer goes to its new door; other failures are retried once.
void transport_failed(call_actor* self, const caf::error& err) {
  auto& st = self->state;
  const std::string m = st.req.member;
  const TransportFault fault = transport_fault_of(err, self->system());
  const bool held = st.phase == CallPhase::following || st.phase == CallPhase::polling;
  st.last_failure = fault.reason;
  if (fault.kind == TransportFailure::refused) {
    const std::string why = "the connection to " + m + "'s door was refused: ";
    const std::string gone = held ? m + " stopped running while it held the task" : m + " is not running (its process has ended)";
    if (is_child(self)) return end(self, CallStatus::unreachable, why + gone);
    // The egress answers a known member at once; one being restarted (roster `restart:`) once its
    // new door answers. Nothing else is read meanwhile. Nothing reached the old door unless it
    // held the task: the offer goes to the new one. A task it held is lost with it, and named so.
    self->request(st.setup.egress, st.setup.address_wait, address_atom_v, m)
      .await(
        [=](const std::string& url) {
          auto& s = self->state;
          if (!held && !url.empty() && url != s.url) {
            s.transport_failures = 0;
            return proceed(self, url);
          }
          end(self, CallStatus::unreachable, why + (url.empty() ? ended_text(m) : gone));
        },
        [=](const caf::error&) { end(self, CallStatus::unreachable, why + gone); });
    return;
  }
  if (++st.transport_failures >= 2) {
    std::string why;
    if (fault.kind == TransportFailure::timed_out)
      why = (held ? m + " stopped answering while it held the task: " : std::string()) + m +
            "'s door did not answer twice in a row (" + fault.reason + " after " +
            std::to_string(request_timeout.count()) + " s); its process may be stopped or hung";
    else
      why = m + "'s door could not be reached twice in a row (" + fault.reason + ")";
    return end(self, CallStatus::unreachable, why);
  }
  if (held) return schedule_tick(self, poll_interval);
  enter(self, CallPhase::retrying);
  self->delayed_send(self, poll_interval, retry_atom_v);
}

bool is_busy(const DoorReply& r) { return r.ok() && r.task.state == TaskState::rejected && r.task.busy; }
bool is_held(const DoorReply& r) { return r.ok() && r.task.state != TaskState::rejected && !r.task.id.empty(); }

// The answer to an offer made before the call was abandoned (or ended at its deadline): a task
// the callee took from it is canceled; then the actor quits.
void take_back(call_actor* self, const DoorReply& r) {
  if (is_held(r)) {
    self->state.member_task_id = r.task.id;
    if (self->state.confirm_ms > 0) return cancel_and_confirm(self);
    cancel_held(self);
  }
  quit(self);
}

void on_offer_reply(call_actor* self, const DoorReply& r) {
  auto& st = self->state;
  if (st.phase == CallPhase::abandoning) return take_back(self, r);
  st.transport_failures = 0;
  st.last_failure.clear();
  st.last_busy = is_busy(r);
  const std::string& m = st.req.member;
  const TaskView& v = r.task;
  if (r.refused())
    return end(self, CallStatus::failed, m + "'s door refused the call: " + to_string(r.refusal) + ": " + r.refusal_message);
  if (r.rpc_code != 0)
    return end(self, CallStatus::failed, m + "'s door answered error " + std::to_string(r.rpc_code) + ": " + r.rpc_message);
  if (st.last_busy) {
    trace(self, "member_call_busy", {{"task_id", st.req.task_id}, {"call_id", st.req.call_id}, {"member", m},
                                     {"offer", st.offers}, {"waited_ms", ms_since(self, st.began)},
                                     {"message", v.status_text}});
    answer_start(self, CallStatus::busy, m + " is busy and has not taken the task; the runtime keeps offering it");
    enter(self, CallPhase::busy);
    self->delayed_send(self, reoffer_delay(st.req.call_id, st.offers), retry_atom_v);
    return;
  }
  if (v.state == TaskState::rejected)
    return end(self, CallStatus::rejected, v.status_text.empty() ? m + " rejected the task" : v.status_text);
  if (v.id.empty()) return end(self, CallStatus::failed, m + "'s door answered without a task id");
  st.member_task_id = v.id;
  if (is_child(self))
    trace(self, "delegation_start", {{"task_id", st.req.task_id}, {"call_id", st.req.call_id}, {"capsule", capsule_of(m)},
                                     {"child_session", st.child_session}, {"child_task_id", v.id}});
  else
    trace(self, "member_call_start",
          {{"task_id", st.req.task_id}, {"call_id", st.req.call_id}, {"member", m}, {"member_task_id", v.id}});
  answer_start(self, CallStatus::started, m + " holds the task");
  if (is_terminal(v.state)) return end_from(self, v);
  follow(self);
}

void offer(call_actor* self) {
  enter(self, CallPhase::offering);
  ++self->state.offers;
  ask_callee(self, send_request(self))
    .then([=](const DoorReply& r) { on_offer_reply(self, r); },
          [=](const caf::error& err) {
            if (self->state.phase == CallPhase::abandoning) return quit(self);
            transport_failed(self, err);
          });
}

// -- before the first offer ---------------------------------------------------------------------

// The checks once the address is known: the egress allow-list, a callee that ended, then the offer.
void proceed(call_actor* self, const std::string& url) {
  auto& st = self->state;
  if (!st.setup.allows_localhost)
    return refuse(self, "this member's egress does not reach other members: its capabilities.network.allow does not "
                        "list localhost. Fix: add capabilities: {network: {allow: [localhost]}} to its murmur.yaml");
  if (url.empty()) return end(self, CallStatus::unreachable, ended_text(st.req.member) + "; nothing was sent");
  st.url = url;
  st.bearer = Bearer{st.setup.token, nullptr};
  offer(self);
}

// The address wait is the timeout of the egress request that asks for it: no timer is left behind.
void wait_for_address(call_actor* self) {
  auto& st = self->state;
  enter(self, CallPhase::waiting_address);
  self->request(st.setup.egress, st.setup.address_wait, address_atom_v, st.req.member)
    .then([=](const std::string& url) { proceed(self, url); },
          [=](const caf::error&) {
            refuse(self, "the address of " + self->state.req.member +
                           " did not arrive within 10 seconds, so nothing was sent; it may not have started");
          });
}

// The words of a delegation refused at the formation's ceiling: for the model, and the trace.
std::string over_ceiling(const std::string& capsule, const LiveSlot& s) {
  if (!s.failure.empty())
    return "no child of " + capsule + " was started: " + s.failure + ", so the formation's ceiling of live " +
           "members and children cannot be kept. Answer from what you have.";
  return "no child of " + capsule + " was started: the formation already runs its ceiling of " +
         std::to_string(s.max_live) + " live members and delegated children (limits.max_live in roster.yaml). " +
         "Answer from what you have, or delegate again later: a slot is free again once a delegated child has ended.";
}

void start_child_process(call_actor* self);

// A delegation: a slot of the formation's live ledger first (when it has one), then its own
// child, then offered like a call.
void start_child(call_actor* self) {
  auto& st = self->state;
  enter(self, CallPhase::starting_child);
  if (!st.setup.live) return start_child_process(self);
  self->request(st.setup.live, caf::infinite, TakeLiveSlot{st.req.call_id})
    .then(
      [=](const LiveSlot& s) {
        auto& st = self->state;
        st.slot_held = s.granted;
        if (st.phase == CallPhase::abandoning) return quit(self); // it ended while it waited
        if (!s.granted) return refuse(self, over_ceiling(capsule_of(st.req.member), s), "live_ceiling");
        start_child_process(self);
      },
      [=](const caf::error& err) {
        if (self->state.phase == CallPhase::abandoning) return quit(self);
        refuse(self, over_ceiling(capsule_of(self->state.req.member),
                                  LiveSlot{self->state.req.call_id, false, 0,
                                           "the live ledger did not answer (" + self->system().render(err) + ")"}),
               "live_ceiling");
      });
}

void start_child_process(call_actor* self) {
  auto& st = self->state;
  st.slot_held = false; // handed on with StartChild: the child port gives it back once the child is gone
  self->request(st.setup.children, caf::infinite,
                StartChild{st.req.call_id, capsule_of(st.req.member), st.setup.child_version, st.req.task_id})
    .then(
      [=](const ChildStarted& started, const Bearer& bearer) {
        auto& st = self->state;
        st.child_started = started.failure.empty();
        if (st.phase == CallPhase::abandoning) return quit(self); // it ended while the child started
        if (!started.failure.empty()) return end(self, CallStatus::failed, started.failure); // names the capsule
        st.url = started.url;
        st.bearer = bearer;
        st.child_session = started.session_id;
        offer(self);
      },
      [=](const caf::error& err) {
        if (self->state.phase == CallPhase::abandoning) return quit(self);
        end(self, CallStatus::failed, self->state.req.member + " could not be started (" + self->system().render(err) + ")");
      });
}

caf::result<CallStart> on_call(call_actor* self, const CallMember& req) {
  auto& st = self->state;
  st.req = req;
  st.task = caf::actor_cast<call_listener>(self->current_sender()); // before the promise takes it over
  st.start = self->make_response_promise<CallStart>();
  st.began = self->clock().now();
  if (req.deadline_ms > 0 && std::chrono::milliseconds(req.deadline_ms) < st.setup.call_deadline) {
    st.setup.call_deadline = std::chrono::milliseconds(req.deadline_ms); // the caller's own caller stops waiting first
    st.callers_deadline = true;
  }
  self->delayed_send(self, st.setup.call_deadline, deadline_atom_v);
  if (is_child(self)) start_child(self);
  else if (st.setup.address) proceed(self, *st.setup.address);
  else wait_for_address(self);
  return st.start;
}

// -- the deadline, named by the state it finds the call in ---------------------------------------

void on_deadline(call_actor* self) {
  auto& st = self->state;
  const std::string& m = st.req.member;
  // "the call deadline of 600 s", or the calling task's own remaining time when that came first.
  const std::string within = st.callers_deadline
    ? "the " + std::to_string(st.setup.call_deadline.count()) + " ms its calling task could still wait"
    : "the call deadline of " + std::to_string(st.setup.call_deadline.count() / 1000) + " s";
  const std::string silent = st.last_failure.empty() ? "" : "; its door stopped answering (" + st.last_failure + ")";
  switch (st.phase) {
  case CallPhase::waiting_address:
    return refuse(self, "the address of " + m + " did not arrive within " + within +
                          ", so nothing was sent; it may not have started");
  case CallPhase::starting_child:
    report_end(self, CallStatus::timed_out, m + " did not start within " + within);
    return enter(self, CallPhase::abandoning); // a child that starts after all is ended
  case CallPhase::following:
  case CallPhase::polling:
    return end(self, CallStatus::timed_out,
               m + " took the task but did not finish it within " + within + silent);
  default: break; // offering, busy, retrying: it never held the task
  }
  if (st.last_busy && st.last_failure.empty())
    report_end(self, CallStatus::rejected, m + " stayed busy for the whole of " + within + " and never took the task");
  else
    report_end(self, CallStatus::timed_out, m + " did not answer the offer within " + within + silent);
  if (st.phase == CallPhase::offering) return enter(self, CallPhase::abandoning); // its answer may still hold a task
  quit(self);
}

// -- the states -----------------------------------------------------------------------------------

// AbandonCall where no request of the call is in flight: a child's held task is canceled, and a
// member's when the calling task was canceled (cancel follows the tree); quits.
void abandon(call_actor* self, const AbandonCall& a) {
  if (a.cancel && a.confirm_within_ms > 0) {
    self->state.confirm_ms = a.confirm_within_ms;
    return cancel_and_confirm(self);
  }
  if (is_child(self) || a.cancel) cancel_held(self);
  quit(self);
}

behavior in_phase(call_actor* self, CallPhase phase) {
  auto deadline = [=](deadline_atom) { on_deadline(self); };
  auto abandoned = [=](const AbandonCall& a) { abandon(self, a); };
  auto wait_for_answer = [=](const AbandonCall& a) {
    if (a.cancel) self->state.confirm_ms = a.confirm_within_ms;
    enter(self, CallPhase::abandoning);
  };
  auto tick = [=](retry_atom) { on_tick(self); };
  auto stream_event = [=](const TaskEvent& ev) {
    if (is_terminal(ev.task.state)) end_from(self, ev.task);
    else observe(self, ev.task);
  };
  auto answer = [=](const AnswerCall& a) { send_answer(self, a); };
  auto no_answer = [](const AnswerCall&) {}; // no task of the callee's is followed: nothing asks
  switch (phase) {
  case CallPhase::fresh:
    return state_behavior<egress_call_handle>([=](const CallMember& req) { return on_call(self, req); });
  case CallPhase::waiting_address: return state_behavior<egress_call_handle>(abandoned, deadline);
  case CallPhase::starting_child:
  case CallPhase::offering: return state_behavior<egress_call_handle>(wait_for_answer, deadline);
  case CallPhase::busy:
  case CallPhase::retrying:
    return state_behavior<egress_call_handle>([=](retry_atom) { offer(self); }, abandoned, deadline);
  case CallPhase::following:
    return state_behavior<egress_call_handle>(
      stream_event, tick, abandoned, deadline, answer, [=](const TaskStreamLost&) { // follow it by polling instead
        enter(self, CallPhase::polling);
        schedule_tick(self, poll_interval);
      });
  case CallPhase::polling: // a stream that failed as it opened may still report its loss: polled already
    return state_behavior<egress_call_handle>(stream_event, tick, abandoned, deadline, answer, [](const TaskStreamLost&) {});
  case CallPhase::abandoning: break;
  case CallPhase::canceling: // only the CancelTask's answer matters now
    return state_behavior<egress_call_handle>([](const AbandonCall&) {}, [](deadline_atom) {}, [](retry_atom) {},
                                              [](const TaskEvent&) {}, [](const TaskStreamLost&) {}, no_answer);
  }
  // abandoning: nobody waits for the call any more (an AbandonCall can still follow its deadline's
  // CallEnded); the answer in flight decides what is undone.
  return state_behavior<egress_call_handle>([](const AbandonCall&) {}, [](deadline_atom) {}, no_answer);
}

behavior egress_call(call_actor* self, EgressCallSetup setup) {
  self->state.setup = std::move(setup);
  return in_phase(self, CallPhase::fresh);
}

} // namespace

egress_call_handle spawn_egress_call(caf::local_actor* egress, EgressCallSetup setup) {
  return egress->spawn<caf::linked>(egress_call, std::move(setup));
}

std::chrono::milliseconds reoffer_delay(const std::string& call_id, int offers_so_far) {
  const int n = std::max(1, offers_so_far);
  const long long base = std::min<long long>(4000, 250LL << std::min(n - 1, 5));
  const auto jitter = static_cast<long long>(std::hash<std::string>{}(call_id + "#" + std::to_string(n)) % 251);
  return std::chrono::milliseconds(base + jitter);
}

} // namespace mur
