#include "actors/door.hpp"

#include "actors/atoms.hpp"
#include "messages/door_request.hpp"
#include "messages/door_scope.hpp"
#include "messages/ids.hpp"
#include "messages/rpc_error_codes.hpp"
#include "messages/task_progress.hpp"
#include "messages/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>

namespace mur {
namespace {

using json = nlohmann::json;

struct Entry {
  TaskView view;
  task_handle task; // the task actor while it runs
  std::vector<caf::strong_actor_ptr> subscribers;
  std::vector<caf::typed_response_promise<DoorReply>> waiters; // blocking SendMessage callers
};

struct DoorState {
  DoorSetup setup;
  std::map<std::string, Entry> tasks;   // by task id (ids sort by minting time)
  std::string running;                  // the task holding the slot, or ""
  std::deque<std::string> queued;       // admitted, waiting for the slot
  bool closing = false;
  std::vector<caf::typed_response_promise<std::int32_t>> drained; // winddown callers waiting for running tasks to end
  std::optional<IdClock> clock;               // time of day and fresh ids
  static inline const char* name = "mur.door";
};

using door_actor = door_handle::stateful_base<DoorState>;

bool known_method(const std::string& m) {
  return is_door_scope(m) || m == card_method;
}

DoorReply refusal(DoorRefusal kind, std::string message, std::string scope = {}) {
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

void trace(door_actor* self, const char* type, json fields) {
  if (self->state.setup.trace) self->send(self->state.setup.trace, TraceEvent{type, fields.dump()});
}

// Unix ms now: wall-clock time in a real session, a deterministic offset in a simulation.
std::int64_t now_ms(door_actor* self) { return self->state.clock->now_ms(); }

// Sends the task's new state to every subscriber; drops them all at a terminal state.
void publish(door_actor* self, Entry& e) {
  e.view.updated_ms = now_ms(self);
  for (auto& s : e.subscribers)
    self->send(caf::actor_cast<stream_listener>(s), TaskEvent{e.view});
  if (is_terminal(e.view.state)) {
    e.subscribers.clear();
    for (auto& w : e.waiters) w.deliver(with_task(e.view));
    e.waiters.clear();
  }
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
  const std::string id = st.queued.front();
  st.queued.pop_front();
  auto& e = st.tasks[id];
  st.running = id;
  e.task = st.setup.start_task(e.view, task_owner{door_handle{self}});
  if (e.task) self->monitor(e.task);
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

DoorReply send_message(door_actor* self, const DoorRequest& req) {
  auto& st = self->state;
  if (st.setup.acceptance.kind == AcceptancePolicy::Kind::none)
    return rpc_error(rpc::method_not_found, "Method not found: this capsule takes no tasks at its door");
  if (!req.task_id.empty()) { // a message for an existing task: none of ours ever waits for input
    auto it = st.tasks.find(req.task_id);
    if (it == st.tasks.end() || !reachable(req, it->second)) return not_found(req.task_id);
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
  json received{{"task_id", v.id}, {"context_id", v.context_id}, {"message_id", req.message_id}};
  if (req.verdict.is_formation) received["caller_member"] = req.verdict.caller;
  trace(self, "a2a_task_received", received);
  Entry fresh;
  fresh.view = v;
  st.tasks[v.id] = std::move(fresh);
  st.queued.push_back(v.id);
  start_next(self);
  return with_task(st.tasks[v.id].view);
}

DoorReply cancel(door_actor* self, Entry& e) {
  auto& st = self->state;
  if (is_terminal(e.view.state))
    return rpc_error(rpc::task_not_cancelable, "Task cannot be canceled: it has ended " + state_word(e.view.state),
                     "TASK_NOT_CANCELABLE");
  e.view.state = TaskState::canceled;
  e.view.status_text = "canceled";
  auto q = std::find(st.queued.begin(), st.queued.end(), e.view.id);
  if (q != st.queued.end()) st.queued.erase(q);
  if (e.task) self->send(e.task, cancel_atom_v);
  publish(self, e);
  return with_task(e.view);
}

DoorReply list_tasks(door_actor* self, const DoorRequest& req) {
  std::vector<TaskView> matching;
  for (auto it = self->state.tasks.rbegin(); it != self->state.tasks.rend(); ++it) // newest first
    if (reachable(req, it->second) &&
        (req.filter_context_id.empty() || it->second.view.context_id == req.filter_context_id) &&
        (req.filter_state.empty() || to_string(it->second.view.state) == req.filter_state) &&
        it->second.view.updated_ms > req.filter_updated_after_ms)
      matching.push_back(it->second.view);
  const std::size_t size = static_cast<std::size_t>(std::clamp(req.page_size, 1, 100));
  std::size_t offset = 0;
  if (!req.page_token.empty()) {
    try {
      offset = std::stoul(req.page_token);
    } catch (...) {
      return rpc_error(rpc::invalid_params, "Invalid params: pageToken is not one this door issued");
    }
    if (offset > matching.size()) return rpc_error(rpc::invalid_params, "Invalid params: pageToken is past the end");
  }
  DoorReply r;
  r.total_size = static_cast<std::int32_t>(matching.size());
  for (std::size_t i = offset; i < matching.size() && i < offset + size; ++i) r.tasks.push_back(matching[i]);
  r.next_page_token = offset + size < matching.size() ? std::to_string(offset + size) : "";
  return r;
}

DoorReply handle(door_actor* self, const DoorRequest& req) {
  auto& st = self->state;
  if (req.method == card_method) {
    DoorReply r;
    r.session_id = st.setup.session_id;
    return r;
  }
  if (auto no = judge_caller(st.setup.authenticated, st.setup.accepts_peer_tasks, req.verdict, req.peer_origin))
    return refusal(no->kind, no->message);
  const bool formation = st.setup.authenticated && req.verdict.is_formation;
  if (!known_method(req.method)) return rpc_error(rpc::method_not_found, "Method not found");
  const bool reaches = st.setup.authenticated ? req.verdict.reaches(req.method) : req.method != "session/stop";
  if (!reaches)
    return refusal(DoorRefusal::insufficient_scope, scope_refusal_message(st.setup.authenticated, req.verdict, req.method),
                   req.method);

  DoorRequest scoped = req;
  scoped.verdict.is_formation = formation;
  if (req.method == "SendMessage" || req.method == "SendStreamingMessage") return send_message(self, scoped);
  if (req.method == "ListTasks") return list_tasks(self, scoped);
  if (req.method == "GetExtendedAgentCard") {
    if (!st.setup.authenticated) return rpc_error(rpc::unsupported_operation, "Unsupported operation: this door is public", "UNSUPPORTED_OPERATION");
    DoorReply r;
    r.session_id = st.setup.session_id;
    return r;
  }
  if (req.method == "session/stop") {
    self->send(st.setup.owner, sigterm_atom_v);
    DoorReply r;
    r.session_id = st.setup.session_id;
    return r;
  }
  // GetTask, CancelTask, SubscribeToTask
  if (req.task_id.empty()) return rpc_error(rpc::invalid_params, "Invalid params: " + req.method + " requires an id");
  auto it = st.tasks.find(req.task_id);
  if (it == st.tasks.end() || !reachable(scoped, it->second)) return not_found(req.task_id);
  auto& e = it->second;
  if (req.method == "CancelTask") return cancel(self, e);
  if (req.method == "SubscribeToTask" && !is_terminal(e.view.state))
    e.subscribers.push_back(self->current_sender());
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

door_handle::behavior_type door(door_actor* self, DoorSetup setup) {
  self->state.setup = std::move(setup);
  self->state.clock.emplace(self->state.setup.ids, self->clock(), self->state.setup.session_id + "/door");
  // A task actor that ends without reporting (it crashed) fails its task rather than holding
  // the slot forever.
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto& st = self->state;
    for (auto& [id, e] : st.tasks) {
      if (!e.task || e.task.address() != dm.source) continue;
      e.task = nullptr;
      if (!is_terminal(e.view.state)) {
        e.view.state = TaskState::failed;
        e.view.status_text = "the task ended unexpectedly: " + self->system().render(dm.reason);
        publish(self, e);
      }
      task_gone(self, id);
      return;
    }
  });
  return {
    [=](const DoorRequest& req) -> caf::result<DoorReply> {
      DoorReply r = handle(self, req);
      if (!r.ok() || is_terminal(r.task.state) || r.task.id.empty()) return r;
      if (req.method == "SendStreamingMessage") {
        self->state.tasks[r.task.id].subscribers.push_back(self->current_sender());
      } else if (req.method == "SendMessage" && !req.return_immediately) {
        // Blocking by default (A2A v1.0): answer when the task reaches a terminal state.
        auto rp = self->make_response_promise<DoorReply>();
        self->state.tasks[r.task.id].waiters.push_back(rp);
        return rp;
      }
      return r;
    },
    [=](const TaskWorking& w) {
      auto it = self->state.tasks.find(w.task_id);
      if (it == self->state.tasks.end() || is_terminal(it->second.view.state)) return;
      it->second.view.state = TaskState::working;
      publish(self, it->second);
    },
    [=](const TaskFinished& f) {
      auto& st = self->state;
      auto it = st.tasks.find(f.task_id);
      if (it == st.tasks.end()) return;
      auto& e = it->second;
      e.task = nullptr;
      if (!is_terminal(e.view.state)) { // an accepted cancel overrides the loop's final state
        e.view.state = f.state;
        e.view.status_text = f.status_text;
        e.view.answer = f.answer;
        e.view.no_answer = f.no_answer;
        e.view.no_answer_below = f.no_answer_below;
        publish(self, e);
      }
      if (st.setup.owner) self->send(st.setup.owner, task_end_atom_v, e.view);
      task_gone(self, f.task_id);
    },
    // Wind-down: accept nothing more, refuse what waits, cancel what runs; answer when drained.
    // Answers how many tasks were running (0 or 1) once none runs any more.
    [=](winddown_atom) -> caf::result<std::int32_t> {
      auto& st = self->state;
      st.closing = true;
      for (const auto& id : st.queued) {
        auto& e = st.tasks[id];
        e.view.state = TaskState::rejected;
        e.view.status_text = closing_status_text;
        trace(self, "task_rejected", {{"task_id", id}, {"cause", "session_ended"}});
        publish(self, e);
      }
      st.queued.clear();
      if (st.running.empty()) return std::int32_t{0};
      auto& e = st.tasks[st.running];
      if (!is_terminal(e.view.state)) {
        e.view.state = TaskState::canceled;
        e.view.status_text = "canceled: the session is ending";
        publish(self, e);
      }
      if (e.task) self->send(e.task, cancel_atom_v);
      auto rp = self->make_response_promise<std::int32_t>();
      st.drained.push_back(rp);
      return rp;
    },
    // Read-only view for operators and tests: every task, oldest first.
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
