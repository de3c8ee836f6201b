#include "actors/egress.hpp"

#include "actors/atoms.hpp"
#include "messages/door_call.hpp"
#include "messages/door_request.hpp"
#include "messages/member_call.hpp"
#include "messages/model_turn.hpp"
#include "messages/trace_event.hpp"
#include "messages/transport_failure.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace mur {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr auto poll_interval = 500ms;
constexpr auto request_timeout = 5s;
constexpr auto liveness_interval = 3s; // a held call's GetTask beside its stream: is the door still there?
constexpr std::size_t output_cap = 64 * 1024;

enum class Phase { waiting_address, starting_child, offering, busy, following };

struct Call {
  CallMember req;
  call_listener task;             // who asked; receives CallEnded
  caf::response_promise start;    // answered once with CallStart
  bool start_sent = false;
  Phase phase = Phase::waiting_address;
  int offers = 0;
  int transport_failures = 0;
  bool abandoned = false;
  bool polling = false;
  bool last_busy = false;           // the last offer's answer was busy
  std::string last_failure;         // the last transport failure's reason ("" ⇒ none)
  std::optional<caf::actor_clock::time_point> tick_due; // following: the next GetTask
  std::string member_task_id;
  caf::actor_clock::time_point began;
  // A delegation: its child's door and operator credential, once started.
  bool child = false;
  bool child_started = false;
  std::string child_url;
  Bearer child_bearer;
  std::string child_session;
};

struct EgressState {
  EgressSetup setup;
  std::map<std::string, std::string> addresses;   // member → door url
  std::map<std::string, Call> calls;              // by call id
  std::map<std::string, std::string> by_task;     // callee task id → call id
  std::set<std::string> ended;                    // callees that ended as their lifecycle says
  static inline const char* name = "mur.egress";
};

using egress_actor = egress_handle::stateful_base<EgressState>;

std::int64_t ms_since(egress_actor* self, caf::actor_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(self->clock().now() - t).count();
}

void trace(egress_actor* self, const char* type, json fields) {
  if (self->state.setup.trace) self->send(self->state.setup.trace, TraceEvent{type, fields.dump()});
}

std::shared_ptr<const FormationToken> token_for(const EgressState& st, const std::string& member) {
  for (const auto& c : st.setup.bundle->calls)
    if (c.name == member) return std::shared_ptr<const FormationToken>(st.setup.bundle, &c.token);
  return nullptr;
}

bool is_callee(const EgressState& st, const std::string& member) {
  return st.setup.bundle && token_for(st, member) != nullptr;
}

// The exact version spawn.allow names for a delegation target ("" when it names none).
std::string version_of(const EgressState& st, const std::string& target) {
  for (const auto& s : st.setup.spawnable)
    if (capsule_target(s.capsule) == target) return s.version;
  return {};
}

std::string callee_list(const EgressState& st) {
  std::string out;
  if (st.setup.bundle)
    for (const auto& c : st.setup.bundle->calls) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

void answer_start(Call& c, CallStatus status, const std::string& message) {
  if (c.start_sent) return;
  c.start_sent = true;
  c.start.deliver(CallStart{c.req.call_id, status, c.member_task_id, message});
}

// Forgets a call; a delegation's child is ended with it.
void forget(egress_actor* self, const std::string& call_id) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  if (!it->second.member_task_id.empty()) self->state.by_task.erase(it->second.member_task_id);
  if (it->second.child_started && self->state.setup.children) self->send(self->state.setup.children, EndChild{call_id});
  self->state.calls.erase(it);
}

// Ends a call once: its CallStart (if not yet given) and its CallEnded.
void end_call(egress_actor* self, const std::string& call_id, CallStatus status, std::string output,
              std::vector<NoAnswer> below = {}) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  Call& c = it->second;
  if (output.size() > output_cap) output = output.substr(0, output_cap) + "\n[answer cut at 64 KiB]";
  answer_start(c, status, output);
  if (!c.abandoned)
    self->send(c.task, CallEnded{call_id, c.req.member, status, output, c.member_task_id, std::move(below),
                                 ms_since(self, c.began)});
  forget(self, call_id);
}

// Refuses a call before anything was sent: a tool error, and no CallEnded.
void refuse(egress_actor* self, const std::string& call_id, const std::string& message) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  answer_start(it->second, CallStatus::refused, message);
  forget(self, call_id);
}

std::vector<NoAnswer> below_of(const TaskView& v) {
  static const std::vector<std::string> statuses{"failed", "canceled", "rejected", "timed_out",
                                                 "unreachable", "abandoned", "no_answer"};
  std::vector<NoAnswer> out;
  for (const auto& n : v.no_answer_below)
    if (out.size() < max_no_answer_below &&
        (is_member_name(n.member) || (is_capsule_target(n.member) && is_member_name(capsule_of(n.member)))) &&
        std::find(statuses.begin(), statuses.end(), n.status) != statuses.end())
      out.push_back(n);
  return out;
}

// A callee task reached a terminal state: map it to the call's outcome.
void finish_from(egress_actor* self, const std::string& call_id, const TaskView& v) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  const std::string& m = it->second.req.member;
  if (v.state == TaskState::completed) {
    end_call(self, call_id, CallStatus::completed, v.answer, below_of(v));
  } else if (v.state == TaskState::failed && v.no_answer) {
    end_call(self, call_id, CallStatus::no_answer,
             v.status_text.empty() ? m + " ended its task without an answer" : v.status_text, below_of(v));
  } else {
    end_call(self, call_id, call_status_of(v.state),
             v.status_text.empty() ? m + "'s task ended " + state_word(v.state) : v.status_text);
  }
}

// Where a call's requests go, and with which credential: a member's door and its formation
// token, or a delegation's child door and its operator credential.
DoorCallTo door_of(const EgressState& st, const Call& c) {
  return DoorCallTo{c.child ? c.child_url : st.addresses.at(c.req.member)};
}
Bearer bearer_of(const EgressState& st, const Call& c) {
  return c.child ? c.child_bearer : Bearer{token_for(st, c.req.member), nullptr};
}

// Sends one request to the callee's door through the door-call port, its token attached.
auto ask_callee(egress_actor* self, const Call& c, const DoorRequest& req) {
  const auto& st = self->state;
  return self->request(st.setup.network, request_timeout, door_of(st, c), bearer_of(st, c), req);
}

void offer(egress_actor* self, const std::string& call_id);
void follow(egress_actor* self, const std::string& call_id);

DoorRequest send_request(const Call& c) {
  DoorRequest r;
  r.method = DoorMethod::send_message;
  r.peer_origin = !c.child; // a child takes its task from its operator (the parent), not a peer
  r.return_immediately = true; // the call returns as soon as the member holds the task
  r.text = c.req.text;
  r.message_id = "msg_" + c.req.call_id.substr(4);
  return r;
}

// Schedules the next GetTask of a followed call after `delay`, unless one is due sooner (so
// the stream's loss, a failure and the liveness check never run two polls side by side).
void schedule_tick(egress_actor* self, Call& c, const std::string& call_id, caf::timespan delay) {
  const auto due = self->clock().now() + delay;
  if (c.tick_due && *c.tick_due <= due) return;
  c.tick_due = due;
  self->delayed_send(self, delay, retry_atom_v, call_id);
}

std::string ended_text(const std::string& m) {
  return m + " has ended as its lifecycle says (after_task: exit): it takes no more tasks, and calls to it "
             "reach a member that has ended";
}

// A call reached no answer: a refused connection is named at once (nothing listens: the
// callee's process has ended); other failures are retried once, then named.
void transport_failed(egress_actor* self, const std::string& call_id, const caf::error& err) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  Call& c = it->second;
  const std::string& m = c.req.member;
  const TransportFault fault = transport_fault_of(err, self->system());
  c.last_failure = fault.reason;
  if (fault.kind == TransportFailure::refused) {
    std::string why = "the connection to " + m + "'s door was refused: ";
    if (self->state.ended.count(m)) why += ended_text(m);
    else if (c.phase == Phase::following) why += m + " stopped running while it held the task";
    else why += m + " is not running (its process has ended)";
    end_call(self, call_id, CallStatus::unreachable, why);
    return;
  }
  if (++c.transport_failures >= 2) {
    std::string why;
    if (fault.kind == TransportFailure::timed_out)
      why = (c.phase == Phase::following ? m + " stopped answering while it held the task: " : std::string()) + m +
            "'s door did not answer twice in a row (" + fault.reason + " after " +
            std::to_string(request_timeout.count()) + " s); its process may be stopped or hung";
    else
      why = m + "'s door could not be reached twice in a row (" + fault.reason + ")";
    end_call(self, call_id, CallStatus::unreachable, why);
    return;
  }
  if (c.phase == Phase::following) schedule_tick(self, c, call_id, poll_interval);
  else self->delayed_send(self, poll_interval, retry_atom_v, call_id);
}

bool is_busy(const DoorReply& r) { return r.ok() && r.task.state == TaskState::rejected && r.task.busy; }

void on_offer_reply(egress_actor* self, const std::string& call_id, const DoorReply& r) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  Call& c = it->second;
  c.transport_failures = 0;
  c.last_failure.clear();
  c.last_busy = is_busy(r);
  const std::string& m = c.req.member;
  if (r.refused()) {
    end_call(self, call_id, CallStatus::failed, m + "'s door refused the call: " + to_string(r.refusal) + ": " + r.refusal_message);
    return;
  }
  if (r.rpc_code != 0) {
    end_call(self, call_id, CallStatus::failed,
             m + "'s door answered error " + std::to_string(r.rpc_code) + ": " + r.rpc_message);
    return;
  }
  const TaskView& v = r.task;
  if (v.state == TaskState::rejected && v.busy) {
    if (c.abandoned) { forget(self, call_id); return; }
    c.phase = Phase::busy;
    trace(self, "member_call_busy", {{"task_id", c.req.task_id}, {"call_id", call_id}, {"member", m},
                                     {"offer", c.offers}, {"waited_ms", ms_since(self, c.began)},
                                     {"message", v.status_text}});
    answer_start(c, CallStatus::busy, m + " is busy and has not taken the task; the runtime keeps offering it");
    self->delayed_send(self, reoffer_delay(call_id, c.offers), retry_atom_v, call_id);
    return;
  }
  if (v.state == TaskState::rejected) {
    end_call(self, call_id, CallStatus::rejected, v.status_text.empty() ? m + " rejected the task" : v.status_text);
    return;
  }
  if (v.id.empty()) {
    end_call(self, call_id, CallStatus::failed, m + "'s door answered without a task id");
    return;
  }
  c.member_task_id = v.id;
  self->state.by_task[v.id] = call_id;
  if (c.abandoned) { // the callee took it after the calling task ended: take it back
    DoorRequest cancel;
    cancel.method = DoorMethod::cancel_task;
    cancel.task_id = v.id;
    caf::anon_send(self->state.setup.network, door_of(self->state, c), bearer_of(self->state, c),
                   cancel); // its answer is of no interest
    forget(self, call_id);
    return;
  }
  if (c.child)
    trace(self, "delegation_start", {{"task_id", c.req.task_id}, {"call_id", call_id}, {"capsule", capsule_of(m)},
                                     {"child_session", c.child_session}, {"child_task_id", v.id}});
  else
    trace(self, "member_call_start",
          {{"task_id", c.req.task_id}, {"call_id", call_id}, {"member", m}, {"member_task_id", v.id}});
  answer_start(c, CallStatus::started, m + " holds the task");
  if (is_terminal(v.state)) {
    finish_from(self, call_id, v);
    return;
  }
  c.phase = Phase::following;
  follow(self, call_id);
}

void offer(egress_actor* self, const std::string& call_id) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  Call& c = it->second;
  c.phase = Phase::offering;
  ++c.offers;
  ask_callee(self, c, send_request(c))
    .then([=](const DoorReply& r) { on_offer_reply(self, call_id, r); },
          [=](const caf::error& err) { transport_failed(self, call_id, err); });
}

// One GetTask of a followed call: every 500 ms once its stream is lost, else every 3 s beside
// the stream, so a callee that stops answering is seen (two failures in a row end the call).
void poll(egress_actor* self, const std::string& call_id) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  const Call& c = it->second;
  DoorRequest get;
  get.method = DoorMethod::get_task;
  get.task_id = c.member_task_id;
  ask_callee(self, c, get)
    .then(
      [=](const DoorReply& r) {
        auto i = self->state.calls.find(call_id);
        if (i == self->state.calls.end()) return;
        if (!r.ok()) {
          end_call(self, call_id, CallStatus::failed, i->second.req.member + "'s door stopped answering for the task: " +
                                              (r.refused() ? to_string(r.refusal) : r.rpc_message));
          return;
        }
        i->second.transport_failures = 0;
        i->second.last_failure.clear();
        if (is_terminal(r.task.state)) finish_from(self, call_id, r.task);
        else
          schedule_tick(self, i->second, call_id,
                        i->second.polling ? caf::timespan(poll_interval) : caf::timespan(liveness_interval));
      },
      [=](const caf::error& err) { transport_failed(self, call_id, err); });
}

// Follows the callee task with SubscribeToTask (and a GetTask every 3 s beside it); polls
// GetTask every 500 ms if the subscription fails.
void follow(egress_actor* self, const std::string& call_id) {
  auto it = self->state.calls.find(call_id);
  if (it == self->state.calls.end()) return;
  const Call& c = it->second;
  DoorRequest sub;
  sub.method = DoorMethod::subscribe_to_task;
  sub.task_id = c.member_task_id;
  ask_callee(self, c, sub)
    .then(
      [=](const DoorReply& r) {
        auto i = self->state.calls.find(call_id);
        if (i == self->state.calls.end()) return;
        if (!r.ok()) {
          i->second.polling = true;
          schedule_tick(self, i->second, call_id, poll_interval);
          return;
        }
        if (is_terminal(r.task.state)) finish_from(self, call_id, r.task);
        else schedule_tick(self, i->second, call_id, liveness_interval);
      },
      [=](const caf::error& err) {
        auto i = self->state.calls.find(call_id);
        if (i == self->state.calls.end()) return;
        i->second.polling = true;
        transport_failed(self, call_id, err);
      });
}

// A delegation: its own child first, then offered like a call.
void start_child(egress_actor* self, const std::string& call_id, const std::string& version) {
  auto& st = self->state;
  Call& c = st.calls.at(call_id);
  c.phase = Phase::starting_child;
  self->request(st.setup.children, caf::infinite, StartChild{call_id, capsule_of(c.req.member), version, c.req.task_id})
    .then(
      [=](const ChildStarted& started, const Bearer& bearer) {
        auto it = self->state.calls.find(call_id);
        if (it == self->state.calls.end() || it->second.abandoned) { // the call ended while it started
          if (started.failure.empty()) self->send(self->state.setup.children, EndChild{call_id});
          if (it != self->state.calls.end()) forget(self, call_id);
          return;
        }
        Call& c = it->second;
        if (!started.failure.empty()) {
          end_call(self, call_id, CallStatus::failed, started.failure); // the port's sentence names the capsule
          return;
        }
        c.child_started = true;
        c.child_url = started.url;
        c.child_bearer = bearer;
        c.child_session = started.session_id;
        offer(self, call_id);
      },
      [=](const caf::error& err) {
        auto it = self->state.calls.find(call_id);
        if (it == self->state.calls.end()) return;
        end_call(self, call_id, CallStatus::failed,
                 it->second.req.member + " could not be started (" + self->system().render(err) + ")");
      });
}

// The checks after the address is known: egress allow-list, then the first offer.
void proceed(egress_actor* self, const std::string& call_id) {
  auto& st = self->state;
  if (!st.setup.allows_localhost) {
    refuse(self, call_id,
           "this member's egress does not reach other members: its capabilities.network.allow does not "
           "list localhost. Fix: add capabilities: {network: {allow: [localhost]}} to its murmur.yaml");
    return;
  }
  auto it = st.calls.find(call_id);
  if (it != st.calls.end() && st.ended.count(it->second.req.member)) {
    end_call(self, call_id, CallStatus::unreachable, ended_text(it->second.req.member) + "; nothing was sent");
    return;
  }
  offer(self, call_id);
}

egress_handle::behavior_type egress(egress_actor* self, EgressSetup setup) {
  self->state.setup = std::move(setup);
  return {
    [=](const CallMember& req) -> caf::result<CallStart> {
      auto& st = self->state;
      auto asker = caf::actor_cast<call_listener>(self->current_sender()); // before the promise takes it
      auto rp = self->make_response_promise<CallStart>();
      if (is_capsule_target(req.member) && (!st.setup.children || version_of(st, req.member).empty())) {
        rp.deliver(CallStart{req.call_id, CallStatus::refused, "",
                             "'" + capsule_of(req.member) + "' is not a capsule this one may delegate to "
                             "(its capabilities.spawn.allow does not list it); nothing was started"});
        return rp;
      }
      if (!is_capsule_target(req.member) && !is_callee(st, req.member)) {
        const std::string list = callee_list(st);
        rp.deliver(CallStart{req.call_id, CallStatus::refused, "",
                             "'" + req.member + "' is not a member this one may call" +
                               (list.empty() ? std::string(" (it may call none)") : "; it may call: " + list)});
        return rp;
      }
      Call c;
      c.req = req;
      c.task = asker;
      c.start = rp;
      c.began = self->clock().now();
      c.child = is_capsule_target(req.member);
      st.calls.emplace(req.call_id, std::move(c));
      self->delayed_send(self, st.setup.call_deadline, deadline_atom_v, req.call_id);
      if (is_capsule_target(req.member)) {
        start_child(self, req.call_id, version_of(st, req.member));
        return rp;
      }
      if (st.addresses.count(req.member) || st.ended.count(req.member)) {
        proceed(self, req.call_id);
      } else {
        self->delayed_send(self, st.setup.address_wait, wait_atom_v, req.call_id);
      }
      return rp;
    },
    [=](address_atom, const std::vector<MemberText>& addresses) {
      auto& st = self->state;
      for (const auto& a : addresses) {
        if (!is_callee(st, a.member)) continue;
        if (a.text.empty()) { // the callee ended as its lifecycle says
          st.ended.insert(a.member);
        } else {
          st.addresses[a.member] = a.text;
          st.ended.erase(a.member);
        }
      }
      std::vector<std::string> ready;
      for (const auto& [id, c] : st.calls)
        if (c.phase == Phase::waiting_address && (st.addresses.count(c.req.member) || st.ended.count(c.req.member)))
          ready.push_back(id);
      for (const auto& id : ready) proceed(self, id);
    },
    [=](wait_atom, const std::string& call_id) {
      auto it = self->state.calls.find(call_id);
      if (it == self->state.calls.end() || it->second.phase != Phase::waiting_address) return;
      refuse(self, call_id,
             "the address of " + it->second.req.member +
               " did not arrive within 10 seconds, so nothing was sent; it may not have started");
    },
    [=](retry_atom, const std::string& call_id) {
      auto it = self->state.calls.find(call_id);
      if (it == self->state.calls.end()) return;
      Call& c = it->second;
      if (c.phase != Phase::following) return offer(self, call_id);
      if (!c.tick_due || self->clock().now() < *c.tick_due) return; // superseded by a sooner tick
      c.tick_due.reset();
      poll(self, call_id);
    },
    // The call deadline, named by what the callee did: held the task and did not finish it (or
    // stopped answering), never answered the offer, or really stayed busy.
    [=](deadline_atom, const std::string& call_id) {
      auto it = self->state.calls.find(call_id);
      if (it == self->state.calls.end()) return;
      const Call& c = it->second;
      const std::string m = c.req.member;
      const auto secs = std::to_string(self->state.setup.call_deadline.count() / 1000);
      const std::string silent = c.last_failure.empty() ? "" : "; its door stopped answering (" + c.last_failure + ")";
      if (c.phase == Phase::waiting_address)
        refuse(self, call_id, "the address of " + m + " did not arrive within the call deadline of " + secs +
                                " s, so nothing was sent; it may not have started");
      else if (c.phase == Phase::starting_child)
        end_call(self, call_id, CallStatus::timed_out, m + " did not start within the call deadline of " + secs + " s");
      else if (c.phase == Phase::following)
        end_call(self, call_id, CallStatus::timed_out,
                 m + " took the task but did not finish it within the call deadline of " + secs + " s" + silent);
      else if (c.last_busy && c.last_failure.empty())
        end_call(self, call_id, CallStatus::rejected,
                 m + " stayed busy for the whole call deadline of " + secs + " s and never took the task");
      else
        end_call(self, call_id, CallStatus::timed_out,
                 m + " did not answer the offer within the call deadline of " + secs + " s" + silent);
    },
    [=](const TaskEvent& ev) {
      auto it = self->state.by_task.find(ev.task.id);
      if (it == self->state.by_task.end()) return;
      if (is_terminal(ev.task.state)) finish_from(self, it->second, ev.task);
    },
    // The callee's stream broke before its task ended: follow it by polling instead.
    [=](const TaskStreamLost& lost) {
      auto it = self->state.by_task.find(lost.task_id);
      if (it == self->state.by_task.end()) return;
      auto c = self->state.calls.find(it->second);
      if (c == self->state.calls.end() || c->second.phase != Phase::following || c->second.polling) return;
      c->second.polling = true;
      schedule_tick(self, c->second, it->second, poll_interval);
    },
    [=](const AbandonCall& a) {
      auto it = self->state.calls.find(a.call_id);
      if (it == self->state.calls.end()) return;
      it->second.abandoned = true;
      if (it->second.child && !it->second.member_task_id.empty()) { // the child's task is canceled, then the child ends
        DoorRequest cancel;
        cancel.method = DoorMethod::cancel_task;
        cancel.task_id = it->second.member_task_id;
        caf::anon_send(self->state.setup.network, door_of(self->state, it->second), bearer_of(self->state, it->second),
                       cancel);
      }
      if (it->second.phase != Phase::offering) forget(self, a.call_id);
    },
  };
}

} // namespace

std::chrono::milliseconds reoffer_delay(const std::string& call_id, int offers_so_far) {
  const int n = std::max(1, offers_so_far);
  const long long base = std::min<long long>(4000, 250LL << std::min(n - 1, 5));
  const auto jitter = static_cast<long long>(std::hash<std::string>{}(call_id + "#" + std::to_string(n)) % 251);
  return std::chrono::milliseconds(base + jitter);
}

egress_handle spawn_egress(caf::actor_system& sys, EgressSetup setup) {
  return sys.spawn(egress, std::move(setup));
}

} // namespace mur
