#include "actors/door.hpp"
#include "messages/vocabulary/call_chain.hpp"
#include "messages/vocabulary/cancel_confirm.hpp"

#include "actors/atoms.hpp"
#include "actors/task_page.hpp"
#include "messages/credentials/door_scope.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/task_progress.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace mur {
namespace {

using json = nlohmann::json;

struct Entry {
  TaskView view;
  task_handle task; // the task actor while it runs
  std::vector<caf::strong_actor_ptr> subscribers;
  std::vector<caf::typed_response_promise<DoorReply>> waiters; // blocking SendMessage callers
  std::vector<caf::typed_response_promise<DoorReply>> cancels; // CancelTask callers, while its task cancels its calls
  bool canceling = false; // a cancel reached the running task: it answers once its calls confirm
  bool retired = false; // ended with no task actor left: counted by the retention policy
};

struct DoorState {
  DoorSetup setup;
  std::map<std::string, Entry> tasks;   // by task id (ids sort by minting time)
  std::unordered_map<caf::actor_addr, std::string> by_actor; // a running task actor → its task id
  std::unordered_map<caf::actor_addr, std::string> subscribed; // a stream (monitored) → its task id
  std::string running;                  // the task holding the slot, or ""
  std::set<std::string> queued;         // admitted, waiting for the slot; oldest id first
  std::deque<std::pair<std::int64_t, std::string>> retired; // (unix ms it ended, id), oldest first
  bool closing = false;
  std::vector<caf::typed_response_promise<std::int32_t>> drained; // winddown callers waiting for running tasks to end
  std::optional<IdClock> clock;               // time of day and fresh ids
  std::optional<ConversationStore> conversations; // a threaded door's: by (caller, contextId)
  static inline const char* name = "mur.door";
};

using door_actor = door_handle::stateful_base<DoorState>;

DoorReply refusal(DoorRefusal kind, std::string message, DoorMethod scope = DoorMethod::unknown) {
  DoorReply r;
  r.refusal = kind;
  r.refusal_message = std::move(message);
  r.refusal_scope = std::move(scope);
  return r;
}

DoorReply rpc_error(std::int32_t code, std::string message, std::string reason = {}) {
  DoorReply r;
  r.rpc_code = code;
  r.rpc_message = std::move(message);
  r.rpc_reason = std::move(reason);
  return r;
}

DoorReply not_found(const std::string& id) {
  return rpc_error(rpc::task_not_found, "Task not found: " + id, "TASK_NOT_FOUND");
}

DoorReply with_task(const TaskView& v) {
  DoorReply r;
  r.task = v;
  return r;
}

DoorReply not_cancelable(const TaskView& v) {
  return rpc_error(rpc::task_not_cancelable, "Task cannot be canceled: it has already ended (" + state_word(v.state) + ")",
                   "TASK_NOT_CANCELABLE");
}

void trace(door_actor* self, const char* type, json fields) {
  if (self->state.setup.trace) self->send(self->state.setup.trace, TraceEvent{type, fields.dump()});
}

// Unix ms now: wall-clock time in a real session, a deterministic offset in a simulation.
std::int64_t now_ms(door_actor* self) { return self->state.clock->now_ms(); }

// A subscriber is monitored while it follows a task, so one that went (its client left, or it
// fell behind and was dropped) leaves the task's list at once, not when the task ends.
void subscribe(door_actor* self, Entry& e) {
  auto who = self->current_sender();
  if (!who) return;
  self->monitor(caf::actor_cast<caf::actor>(who));
  self->state.subscribed[who->address()] = e.view.id;
  e.subscribers.push_back(std::move(who));
}

void unsubscribe_all(door_actor* self, Entry& e) {
  for (auto& s : e.subscribers) {
    self->demonitor(s->address());
    self->state.subscribed.erase(s->address());
  }
  e.subscribers.clear();
}

// Sends the task's new state to every subscriber; drops them all at a terminal state.
void publish(door_actor* self, Entry& e) {
  e.view.updated_ms = now_ms(self);
  for (auto& s : e.subscribers)
    self->send(caf::actor_cast<stream_listener>(s), TaskEvent{e.view, {}});
  if (is_terminal(e.view.state)) unsubscribe_all(self, e);
  // A blocking SendMessage returns at a terminal state or when the task waits for input.
  if (is_terminal(e.view.state) || e.view.state == TaskState::input_required) {
    for (auto& w : e.waiters) w.deliver(with_task(e.view));
    e.waiters.clear();
  }
}

// The task waits for a person's answer: INPUT_REQUIRED, its status message the question.
void on_asks(door_actor* self, const TaskAsks& a) {
  auto it = self->state.tasks.find(a.task_id);
  if (it == self->state.tasks.end() || is_terminal(it->second.view.state)) return;
  it->second.view.state = TaskState::input_required;
  it->second.view.status_text = a.text;
  publish(self, it->second);
  if (self->state.setup.owner) self->send(self->state.setup.owner, a); // the launch task's question reaches its terminal
}

// SendMessage on a task that waits for input: the message is the answer, passed to the task,
// which is WORKING again at once.
DoorReply answer_task(door_actor* self, const DoorRequest& req, Entry& e) {
  if (e.canceling || !e.task || (!req.question.empty() && req.question != e.view.status_text))
    return rpc_error(rpc::unsupported_operation,
                     "Unsupported operation: task " + e.view.id +
                       (e.canceling || !e.task ? " is ending and waits for no answer"
                                               : " waits for another question now: " + e.view.status_text),
                     "UNSUPPORTED_OPERATION");
  self->send(e.task, TaskAnswer{e.view.id, req.text, req.verdict.credential, req.question});
  e.view.state = TaskState::working;
  e.view.status_text.clear();
  publish(self, e);
  return with_task(e.view);
}

// The CancelTask callers of a task whose actor has ended: the canceled task (with what was
// canceled below it), or not cancelable when it ended otherwise first.
void answer_cancels(Entry& e, bool canceled) {
  for (auto& rp : e.cancels) rp.deliver(canceled ? with_task(e.view) : not_cancelable(e.view));
  e.cancels.clear();
}

// Whether `caller` may see task `e` (formation callers see only their own).
bool reachable(const DoorRequest& req, const Entry& e) {
  return !req.verdict.is_formation || e.view.submitter == req.verdict.credential;
}

void start_next(door_actor* self);

void maybe_drained(door_actor* self) {
  auto& st = self->state;
  if (!st.closing || !st.running.empty()) return;
  for (auto& rp : st.drained) rp.deliver(std::int32_t{1});
  st.drained.clear();
}

void start_next(door_actor* self) {
  auto& st = self->state;
  if (!st.running.empty() || st.queued.empty() || st.closing) return;
  const std::string id = *st.queued.begin();
  st.queued.erase(st.queued.begin());
  auto& e = st.tasks[id];
  st.running = id;
  TaskView start = e.view;
  if (start.deadline_ms > 0) // the time it waited in the queue is the caller's too
    start.deadline_ms = std::max<std::int64_t>(1, start.deadline_ms - (now_ms(self) - start.created_ms));
  // A threaded door: the task continues its caller's conversation in its context, no one else's.
  const Transcript history = st.conversations ? st.conversations->history(start.submitter, start.context_id) : Transcript{};
  e.task = st.setup.start_task(start, history, task_owner{door_handle{self}});
  if (e.task) {
    self->monitor(e.task);
    st.by_actor.emplace(e.task.address(), id);
  }
}

// Forgets ended tasks beyond the retention policy: the oldest ended first, by count, then by age.
void forget_expired(door_actor* self) {
  auto& st = self->state;
  const auto& keep = st.setup.acceptance.retention;
  const std::int64_t oldest_kept = now_ms(self) - keep.max_age.count();
  while (!st.retired.empty() && (st.retired.size() > keep.max_tasks || st.retired.front().first <= oldest_kept)) {
    st.tasks.erase(st.retired.front().second);
    st.retired.pop_front();
  }
}

// A task that has ended and has no task actor left joins the retention queue (once).
void retire(door_actor* self, Entry& e) {
  if (e.retired || !is_terminal(e.view.state) || e.task) return;
  e.retired = true;
  self->state.retired.emplace_back(now_ms(self), e.view.id);
  forget_expired(self);
}

// Room for one more task under the acceptance policy?
bool has_room(const DoorState& st) {
  switch (st.setup.acceptance.kind) {
  case AcceptancePolicy::Kind::none: return false;
  case AcceptancePolicy::Kind::single: return st.running.empty() && st.queued.empty();
  case AcceptancePolicy::Kind::queue:
    return st.running.empty() ? st.queued.size() <= static_cast<std::size_t>(st.setup.acceptance.queue_depth)
                              : st.queued.size() < static_cast<std::size_t>(st.setup.acceptance.queue_depth);
  }
  return false;
}

// The members above a task: a formation caller's chain, ending with the caller as its token
// names it (a chain that does not is completed with it); nobody else's.
std::vector<std::string> chain_of(const DoorRequest& req) {
  if (!req.verdict.is_formation || req.verdict.caller.empty()) return {};
  std::vector<std::string> chain = req.chain;
  if (chain.empty() || chain.back() != req.verdict.caller) chain.push_back(req.verdict.caller);
  if (chain.size() > static_cast<std::size_t>(max_chain_length)) chain.erase(chain.begin());
  return chain;
}

DoorReply send_message(door_actor* self, const DoorRequest& req) {
  auto& st = self->state;
  if (st.setup.acceptance.kind == AcceptancePolicy::Kind::none)
    return rpc_error(rpc::method_not_found, "Method not found: this capsule takes no tasks at its door");
  if (!req.task_id.empty()) { // a message for an existing task: the answer to the question it shows
    auto it = st.tasks.find(req.task_id);
    if (it == st.tasks.end() || !reachable(req, it->second)) return not_found(req.task_id);
    if (it->second.view.state == TaskState::input_required) return answer_task(self, req, it->second);
    return rpc_error(rpc::unsupported_operation, "Unsupported operation: task " + req.task_id + " is " +
                               state_word(it->second.view.state) + " and not waiting for input",
                     "UNSUPPORTED_OPERATION");
  }
  // A formation caller may refer only to tasks it started, as with taskId.
  if (req.verdict.is_formation)
    for (const auto& ref : req.reference_task_ids) {
      auto it = st.tasks.find(ref);
      if (it == st.tasks.end() || !reachable(req, it->second)) return not_found(ref);
    }
  TaskView v;
  v.id = st.clock->mint(ids::task);
  v.context_id = req.context_id.empty() ? st.clock->mint(ids::context) : req.context_id;
  v.request = req.text;
  v.submitter = req.verdict.credential;
  v.chain = chain_of(req);
  if (req.verdict.is_formation) v.deadline_ms = req.deadline_ms; // how long the caller still waits
  v.budget = req.budget; // what the caller has left: anyone's, since it can only narrow the task's own
  v.traceparent = req.traceparent; // the caller's trace context (the task reads it; never sent back)
  v.created_ms = now_ms(self);
  v.updated_ms = v.created_ms;
  if (st.closing || !has_room(st)) {
    v.state = TaskState::rejected;
    v.busy = !st.closing;
    v.status_text = st.closing ? closing_status_text : busy_status_text;
    trace(self, "task_rejected", {{"task_id", v.id}, {"cause", st.closing ? "session_ended" : "busy"},
                                  {"caller_member", req.verdict.is_formation ? req.verdict.caller : ""}});
    return with_task(v);
  }
  json received{{"task_id", v.id}, {"context_id", v.context_id}};
  if (!req.message_id.empty()) received["message_id"] = req.message_id;
  if (req.verdict.is_formation) received["caller_member"] = req.verdict.caller;
  trace(self, "a2a_task_received", received);
  Entry fresh;
  fresh.view = v;
  auto& entry = st.tasks.emplace(v.id, std::move(fresh)).first->second;
  st.queued.insert(v.id);
  start_next(self);
  return with_task(entry.view);
}

// Who a CancelTask comes from, as the task's trace names it.
std::string canceller(const DoorRequest& req) {
  return req.verdict.is_formation ? "caller:" + req.verdict.caller : "operator";
}

// A running task is told, and answers the canceller (on_request) once the calls it had out have
// confirmed their own cancel or the bound the canceller gave has passed; a queued one ends now.
DoorReply cancel(door_actor* self, Entry& e, const std::string& by, std::int64_t within_ms) {
  auto& st = self->state;
  if (is_terminal(e.view.state)) return not_cancelable(e.view);
  if (e.task) {
    if (!e.canceling) {
      e.canceling = true;
      self->send(e.task, cancel_atom_v, by, within_ms > 0 ? within_ms : default_confirm_ms);
      trace(self, "task_cancel", {{"task_id", e.view.id}, {"canceled_by", by}, {"running", true}});
    }
    return with_task(e.view);
  }
  e.view.state = TaskState::canceled;
  e.view.status_text = "canceled";
  st.queued.erase(e.view.id);
  trace(self, "task_cancel", {{"task_id", e.view.id}, {"canceled_by", by}, {"running", false}});
  publish(self, e);
  DoorReply r = with_task(e.view);
  if (st.running != e.view.id) retire(self, e); // a running one retires when its task actor ends
  return r;
}

// Newest status first (task_page.hpp); the page continues after the caller's cursor.
DoorReply list_tasks(door_actor* self, const DoorRequest& req) {
  std::optional<TaskCursor> after;
  if (!req.page_token.empty()) {
    after = decode_cursor(req.page_token);
    if (!after) return rpc_error(rpc::invalid_params, "Invalid params: pageToken is not one this door issued");
  }
  std::int32_t total = 0;
  std::vector<const TaskView*> rest; // matching rows after the cursor
  for (const auto& [id, e] : self->state.tasks) {
    const TaskView& v = e.view;
    if (!reachable(req, e) || (!req.filter_context_id.empty() && v.context_id != req.filter_context_id) ||
        (!req.filter_state.empty() && to_string(v.state) != req.filter_state) ||
        v.updated_ms <= req.filter_updated_after_ms)
      continue;
    ++total;
    if (!after || listed_before(after->updated_ms, after->id, v.updated_ms, v.id)) rest.push_back(&v);
  }
  const std::size_t size = static_cast<std::size_t>(std::clamp(req.page_size, 1, 100));
  const auto order = [](const TaskView* a, const TaskView* b) {
    return listed_before(a->updated_ms, a->id, b->updated_ms, b->id);
  };
  const std::size_t served = std::min(size, rest.size());
  std::partial_sort(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(served), rest.end(), order);
  DoorReply r;
  r.total_size = total;
  for (std::size_t i = 0; i < served; ++i) r.tasks.push_back(*rest[i]);
  if (rest.size() > served) r.next_page_token = encode_cursor({rest[served - 1]->updated_ms, rest[served - 1]->id});
  return r;
}

DoorReply handle(door_actor* self, const DoorRequest& req) {
  auto& st = self->state;
  forget_expired(self); // an idle door forgets by age at its next request
  if (req.method == DoorMethod::agent_card) {
    DoorReply r;
    r.session_id = st.setup.session_id;
    return r;
  }
  if (auto no = judge_caller(st.setup.authenticated, st.setup.accepts_peer_tasks, req.verdict, req.peer_origin))
    return refusal(no->kind, no->message);
  const bool formation = st.setup.authenticated && req.verdict.is_formation;
  if (!is_door_scope(req.method)) return rpc_error(rpc::method_not_found, "Method not found");
  const bool reaches = st.setup.authenticated ? req.verdict.reaches(req.method) : req.method != DoorMethod::session_stop;
  if (!reaches)
    return refusal(DoorRefusal::insufficient_scope, scope_refusal_message(st.setup.authenticated, req.verdict, req.method),
                   req.method);

  DoorRequest scoped = req;
  scoped.verdict.is_formation = formation;
  if (starts_task(req.method)) return send_message(self, scoped);
  if (req.method == DoorMethod::list_tasks) return list_tasks(self, scoped);
  if (req.method == DoorMethod::get_extended_agent_card) {
    if (!st.setup.authenticated) return rpc_error(rpc::unsupported_operation, "Unsupported operation: this door is public", "UNSUPPORTED_OPERATION");
    DoorReply r;
    r.session_id = st.setup.session_id;
    return r;
  }
  if (req.method == DoorMethod::session_stop) {
    self->send(st.setup.owner, sigterm_atom_v);
    DoorReply r;
    r.session_id = st.setup.session_id;
    return r;
  }
  // GetTask, CancelTask, SubscribeToTask
  if (req.task_id.empty()) return rpc_error(rpc::invalid_params, "Invalid params: " + to_string(req.method) + " requires an id");
  auto it = st.tasks.find(req.task_id);
  if (it == st.tasks.end() || !reachable(scoped, it->second)) return not_found(req.task_id);
  auto& e = it->second;
  if (req.method == DoorMethod::cancel_task) return cancel(self, e, canceller(req), req.deadline_ms);
  if (req.method == DoorMethod::subscribe_to_task && !is_terminal(e.view.state)) subscribe(self, e);
  return with_task(e.view);
}

// After a task's end (reported or not): free its slot, start the next, answer a wind-down,
// and tell the owner when after_task: exit applies.
void task_gone(door_actor* self, const std::string& task_id) {
  auto& st = self->state;
  if (st.running == task_id) st.running.clear();
  start_next(self);
  maybe_drained(self);
  if (st.running.empty() && st.queued.empty() && st.setup.acceptance.exit_after_task && !st.closing &&
      st.setup.owner)
    self->send(st.setup.owner, ended_atom_v);
}

// A task actor that ends without reporting (it crashed) fails its task rather than holding the
// slot forever; a subscriber's stream that goes is dropped from its task.
void on_down(door_actor* self, const caf::down_msg& dm) {
  auto& st = self->state;
  if (auto sub = st.subscribed.find(dm.source); sub != st.subscribed.end()) { // a stream went
    if (auto t = st.tasks.find(sub->second); t != st.tasks.end()) {
      auto& subs = t->second.subscribers;
      subs.erase(std::remove_if(subs.begin(), subs.end(), [&](const caf::strong_actor_ptr& p) { return p->address() == dm.source; }),
                 subs.end());
    }
    st.subscribed.erase(sub);
    return;
  }
  auto owner = st.by_actor.find(dm.source);
  if (owner == st.by_actor.end()) return; // its task reported its end already
  const std::string id = std::move(owner->second);
  st.by_actor.erase(owner);
  auto it = st.tasks.find(id);
  if (it == st.tasks.end()) return;
  auto& e = it->second;
  e.task = nullptr;
  if (!is_terminal(e.view.state)) {
    e.view.state = TaskState::failed;
    e.view.status_text = "the task ended unexpectedly: " + self->system().render(dm.reason);
    publish(self, e);
  }
  answer_cancels(e, false);
  task_gone(self, id);
  retire(self, e);
}

// A request's reply; a streaming one subscribes, a blocking SendMessage answers at the end.
caf::result<DoorReply> on_request(door_actor* self, const DoorRequest& req) {
  DoorReply r = handle(self, req);
  if (!r.ok() || is_terminal(r.task.state) || r.task.id.empty()) return r;
  auto it = self->state.tasks.find(r.task.id);
  if (it == self->state.tasks.end()) return r;
  if (req.method == DoorMethod::cancel_task && it->second.canceling) {
    auto rp = self->make_response_promise<DoorReply>();
    it->second.cancels.push_back(rp);
    return rp;
  }
  if (req.method == DoorMethod::send_streaming_message) {
    subscribe(self, it->second);
  } else if (req.method == DoorMethod::send_message && !req.return_immediately) {
    // Blocking by default (A2A v1.0): answer when the task reaches a terminal state.
    auto rp = self->make_response_promise<DoorReply>();
    it->second.waiters.push_back(rp);
    return rp;
  }
  return r;
}

// The answer as it streams: to subscribers only, never stored.
void on_model_text(door_actor* self, const ModelText& m) {
  auto it = self->state.tasks.find(m.task_id);
  if (it == self->state.tasks.end() || is_terminal(it->second.view.state) || it->second.subscribers.empty()) return;
  // A fragment names its task by id only: the whole view (its request text can be a MiB)
  // is not copied for every fragment and every subscriber.
  TaskView ids;
  ids.id = it->second.view.id;
  ids.context_id = it->second.view.context_id;
  ids.state = it->second.view.state;
  // One message for every subscriber: CAF shares its content (copy on write), so a fragment
  // costs its bytes once however many follow the task.
  auto event = caf::make_message(TaskEvent{std::move(ids), m.fragment});
  for (auto& s : it->second.subscribers) s->enqueue(self->ctrl(), caf::make_message_id(), event, self->context());
}

// A threaded door keeps a completed task's exchange in its caller's conversation; what the caps
// dropped to make room is traced (conversation_trimmed).
void remember(door_actor* self, const TaskView& v, const Transcript& exchange) {
  auto& store = *self->state.conversations;
  const ConversationTrim trim = store.record(v.submitter, v.context_id, exchange);
  if (!trim.any()) return;
  const ConversationCaps& caps = store.caps();
  trace(self, "conversation_trimmed",
        {{"task_id", v.id},
         {"context_id", v.context_id},
         {"exchanges_dropped", trim.exchanges_dropped},
         {"condensed", trim.condensed},
         {"conversations_dropped", trim.conversations_dropped},
         {"exchanges_kept", store.exchanges(v.submitter, v.context_id)},
         {"caps", {{"max_exchanges", caps.max_exchanges}, {"max_bytes", caps.max_bytes},
                   {"max_conversations", caps.max_conversations}}}});
}

void on_finished(door_actor* self, const TaskFinished& f) {
  auto& st = self->state;
  auto it = st.tasks.find(f.task_id);
  if (it == st.tasks.end()) return;
  auto& e = it->second;
  if (e.task) {
    st.by_actor.erase(e.task.address());
    // Its end is reported: no down message needed (one message less per task).
    self->demonitor(e.task.address());
  }
  e.task = nullptr;
  e.view.usage = f.usage; // what it spent, for whoever reads the task once it ended
  if (!is_terminal(e.view.state)) { // an accepted cancel overrides the loop's final state
    e.view.state = f.state;
    e.view.status_text = f.status_text;
    e.view.answer = f.answer;
    e.view.no_answer = f.no_answer;
    e.view.no_answer_below = f.no_answer_below;
    publish(self, e);
  }
  answer_cancels(e, f.state == TaskState::canceled);
  if (st.conversations && e.view.state == TaskState::completed && !f.exchange.empty()) remember(self, e.view, f.exchange);
  if (st.setup.owner) self->send(st.setup.owner, task_end_atom_v, e.view);
  task_gone(self, f.task_id);
  retire(self, e);
}

// Wind-down: accept nothing more, refuse what waits, cancel what runs; answer when drained.
// Answers how many tasks were running (0 or 1) once none runs any more.
caf::result<std::int32_t> wind_down(door_actor* self) {
  auto& st = self->state;
  st.closing = true;
  const std::set<std::string> refused = std::move(st.queued);
  st.queued.clear();
  for (const auto& id : refused) {
    auto& e = st.tasks[id];
    e.view.state = TaskState::rejected;
    e.view.status_text = closing_status_text;
    trace(self, "task_rejected", {{"task_id", id}, {"cause", "session_ended"}});
    publish(self, e);
    retire(self, e);
  }
  if (st.running.empty()) return std::int32_t{0};
  auto& e = st.tasks[st.running];
  if (!is_terminal(e.view.state)) {
    e.view.state = TaskState::canceled;
    e.view.status_text = "canceled: the session is ending";
    publish(self, e);
  }
  if (e.task && !e.canceling) self->send(e.task, cancel_atom_v, std::string("session_ending"), session_ending_confirm_ms);
  auto rp = self->make_response_promise<std::int32_t>();
  st.drained.push_back(rp);
  return rp;
}

door_handle::behavior_type door(door_actor* self, DoorSetup setup) {
  self->state.setup = std::move(setup);
  self->state.clock.emplace(self->state.setup.ids, self->clock(), self->state.setup.session_id + "/door");
  if (self->state.setup.threaded) self->state.conversations.emplace(self->state.setup.conversation_caps);
  self->set_down_handler([=](const caf::down_msg& dm) { on_down(self, dm); });
  return {
    [=](const DoorRequest& req) { return on_request(self, req); },
    [=](const TaskWorking& w) {
      auto it = self->state.tasks.find(w.task_id);
      if (it == self->state.tasks.end() || is_terminal(it->second.view.state)) return;
      it->second.view.state = TaskState::working;
      publish(self, it->second);
    },
    [=](const ModelText& m) { on_model_text(self, m); },
    [=](const TaskAsks& a) { on_asks(self, a); },
    [=](const TaskResumed& r) {
      auto it = self->state.tasks.find(r.task_id);
      if (it == self->state.tasks.end() || it->second.view.state != TaskState::input_required) return;
      it->second.view.state = TaskState::working;
      it->second.view.status_text.clear();
      publish(self, it->second);
    },
    [=](const TaskFinished& f) { on_finished(self, f); },
    [=](winddown_atom) { return wind_down(self); },
    // Read-only view for operators and tests: every task the door holds, oldest first.
    [=](caf::get_atom) -> std::vector<TaskView> {
      std::vector<TaskView> out;
      for (const auto& [id, e] : self->state.tasks) out.push_back(e.view);
      return out;
    },
  };
}

} // namespace

door_handle spawn_door(caf::actor_system& sys, DoorSetup setup) {
  return sys.spawn(door, std::move(setup));
}

} // namespace mur
