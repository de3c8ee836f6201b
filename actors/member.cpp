#include "actors/member.hpp"

#include "actors/atoms.hpp"
#include "actors/egress.hpp"
#include "actors/task.hpp"
#include "messages/credentials/door_scope.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/runtime_tools.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

namespace mur {
namespace {

using json = nlohmann::json;

enum class Phase { serving, winding_down, ended };

struct MemberState {
  MemberSetup setup;
  door_handle door;
  egress_handle egress;
  Phase phase = Phase::serving;
  bool lifeline_closed = false;
  std::string launch_task_id;
  TaskState launch_state = TaskState::submitted;
  bool launch_reported = false; // the supervisor was told the launch task's ending
  bool launch_started = false;  // the launch task was sent to the door (once its door was handed out)
  static inline const char* name = "mur.member";
};

using member_actor = member_handle::stateful_base<MemberState>;

void trace(member_actor* self, const char* type, json fields) {
  self->send(self->state.setup.trace, TraceEvent{type, fields.dump()});
}

std::vector<std::string> callees_of(const MemberSetup& s) {
  std::vector<std::string> out;
  if (s.bundle)
    for (const auto& c : s.bundle->calls) out.push_back(c.name);
  return out;
}

// The exit code of a session: 0 unless the launch task ended failed or canceled.
std::int32_t exit_code(const MemberState& st) {
  if (st.launch_task_id.empty()) return 0;
  return st.launch_state == TaskState::completed ? 0 : 1;
}

void end_session(member_actor* self, const std::string& status) {
  auto& st = self->state;
  if (st.phase == Phase::ended) return;
  st.phase = Phase::ended;
  trace(self, "session_end", {{"exit_status", status}});
  if (st.setup.supervisor)
    self->send(st.setup.supervisor, ended_atom_v, st.setup.member, exit_code(st));
  if (st.egress) self->send_exit(st.egress, caf::exit_reason::user_shutdown);
  if (st.door) self->send_exit(st.door, caf::exit_reason::user_shutdown);
  self->quit();
}

void wind_down(member_actor* self, const char* cause) {
  auto& st = self->state;
  if (st.phase != Phase::serving) return;
  st.phase = Phase::winding_down;
  const std::string why = cause;
  self->request(st.door, caf::infinite, winddown_atom_v)
    .then(
      [=](std::int32_t was_running) {
        const bool lifeline = why == "formation_ended" || why == "spawner_ended";
        end_session(self, was_running > 0 ? (lifeline ? why : std::string("canceled")) : "ok");
      },
      [=](const caf::error&) { end_session(self, "failed"); });
}

// Tells the supervisor how the launch task ended, once.
void report_launch(member_actor* self, const TaskView& t) {
  auto& st = self->state;
  st.launch_state = t.state;
  if (st.launch_reported) return;
  st.launch_reported = true;
  // The launch task's ending, for whoever prints the answer (stdout, or a test).
  if (st.setup.supervisor) self->send(st.setup.supervisor, TaskEvent{t, {}});
}

// The launch task (`--task`), sent to the door as the operator once: when the member first hands
// out its door.
void start_launch_task(member_actor* self) {
  auto& st = self->state;
  if (st.launch_started || st.setup.launch_task.empty()) return;
  st.launch_started = true;
  DoorRequest req;
  req.method = DoorMethod::send_message;
  req.text = st.setup.launch_task;
  req.return_immediately = true;
  req.verdict.kind = DoorAuthorization::Kind::Ok;
  req.verdict.credential = std::string(OPERATOR_CREDENTIAL);
  req.verdict.scopes = DoorScopes::all();
  self->request(st.door, caf::infinite, req).then([=](const DoorReply& r) {
    self->state.launch_task_id = r.task.id;
    self->state.launch_state = r.task.state;
  });
}

// The session's first trace line: who this member is, and in which formation or delegation.
void trace_session_start(member_actor* self, const std::vector<std::string>& callees) {
  const auto& setup = self->state.setup;
  json start{{"capsule_name", setup.capsule_name}, {"capsule_version", setup.capsule_version},
             {"max_turns", setup.max_turns}};
  if (!setup.formation_id.empty()) start["formation_id"] = setup.formation_id;
  if (setup.price) start["price"] = price_json(*setup.price); // readers turn tokens into a cost with it
  if (!setup.spawned_by.empty()) { // a delegated child: the formation's id and nothing else
    start["spawned_by"] = setup.spawned_by;
    start["delegation"] = setup.delegation_id;
    start["delegation_depth"] = setup.delegation_depth;
    if (!setup.spawnable.empty() && setup.delegation_depth >= setup.max_delegation_depth)
      start["delegates"] = "no: the depth limit (" + std::to_string(setup.max_delegation_depth) + ")";
  }
  if (setup.bundle) { // a launcher-started member (a delegated child has only the id)
    start["formation_member"] = setup.member;
    start["formation_callees"] = callees;
  }
  trace(self, "session_start", start);
}

// The egress, only for a member that may call someone or delegate to a capsule.
void spawn_member_egress(member_actor* self, const std::vector<std::string>& callees,
                         const std::vector<std::string>& capsules) {
  auto& st = self->state;
  if (callees.empty() && capsules.empty()) return;
  EgressSetup e;
  e.member = st.setup.member;
  e.bundle = st.setup.bundle;
  e.allows_localhost = st.setup.allows_localhost;
  e.call_deadline = st.setup.call_deadline;
  e.network = st.setup.network;
  e.trace = st.setup.trace;
  if (!capsules.empty()) {
    e.spawnable = st.setup.spawnable;
    e.children = st.setup.children;
    e.live = st.setup.live;
  }
  st.egress = spawn_egress(self->system(), std::move(e));
}

// The door, and how it starts a task actor for each task it takes.
void spawn_member_door(member_actor* self, const std::vector<std::string>& callees,
                       const std::vector<std::string>& capsules) {
  auto& st = self->state;
  DoorSetup d;
  d.session_id = st.setup.session_id;
  d.capsule_name = st.setup.capsule_name;
  d.acceptance = st.setup.acceptance;
  d.authenticated = st.setup.authenticated;
  d.accepts_peer_tasks = st.setup.accepts_peer_tasks;
  d.trace = st.setup.trace;
  d.owner = door_owner{member_handle{self}};
  d.ids = st.setup.ids;
  d.threaded = st.setup.threaded;
  auto& sys = self->system();
  // What every task of this member shares, the system message included: built once.
  TaskSetup each;
  each.member = st.setup.member;
  each.callees = callees;
  each.capsules = capsules;
  each.max_turns = st.setup.max_turns;
  each.system_text = system_message(st.setup.system_prompt, st.setup.member, callees, capsules, st.setup.ask_operator);
  each.ask_operator = st.setup.ask_operator;
  each.input_timeout_ms = st.setup.input_timeout.count();
  each.threaded = st.setup.threaded;
  each.capture = st.setup.capture;
  each.model = st.setup.model;
  each.egress = call_port{st.egress};
  each.trace = st.setup.trace;
  each.ids = st.setup.ids;
  each.tools = st.setup.tools;
  each.own_tools = st.setup.own_tools;
  if (st.setup.bundle) {
    each.chain_rule = st.setup.bundle->chain_rule;
    each.limits.formation = st.setup.bundle->limits;
  }
  each.limits.own = st.setup.limits;
  each.limits.own_max_depth = st.setup.max_depth;
  if (!st.setup.spawnable.empty() && st.setup.delegation_depth >= st.setup.max_delegation_depth)
    each.no_delegation = "delegation stops here: this member is a delegated child at depth " +
                         std::to_string(st.setup.delegation_depth) + ", the limit (" +
                         std::to_string(st.setup.max_delegation_depth) + "), so it may not delegate further.";
  d.start_task = [&sys, each = std::move(each)](const TaskView& t, const Transcript& history, const task_owner& door) {
    TaskSetup ts = each;
    ts.task = t;
    ts.history = history;
    ts.door = door;
    return spawn_task(sys, std::move(ts));
  };
  st.door = spawn_door(sys, std::move(d));
}

// The lifeline closed: the formation (or, for a delegated child, its spawner) is gone.
void on_lifeline(member_actor* self) {
  auto& s = self->state;
  if (s.lifeline_closed || s.phase != Phase::serving) return; // after a SIGTERM: nothing
  s.lifeline_closed = true;
  if (!s.setup.spawned_by.empty()) { // the spawner lifeline: its parent's process is gone or let it go
    trace(self, "spawner_ended", {{"spawned_by", s.setup.spawned_by}});
    wind_down(self, "spawner_ended");
    return;
  }
  trace(self, "formation_ended", {{"formation_id", s.setup.formation_id}});
  wind_down(self, "formation_ended");
}

// The door has nothing left and the lifecycle says exit: read the launch task's ending.
void on_door_empty(member_actor* self) {
  if (self->state.phase != Phase::serving) return;
  self->state.phase = Phase::winding_down;
  self->request(self->state.door, caf::infinite, caf::get_atom_v)
    .then(
      [=](const std::vector<TaskView>& tasks) {
        for (const auto& t : tasks)
          if (t.id == self->state.launch_task_id) report_launch(self, t);
        end_session(self, exit_code(self->state) == 0 ? "ok" : "failed");
      },
      [=](const caf::error&) { end_session(self, "failed"); });
}

member_handle::behavior_type member(member_actor* self, MemberSetup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  const auto callees = callees_of(st.setup);
  trace_session_start(self, callees);
  std::vector<std::string> capsules; // what `delegate` may name: spawn.allow, when a child port exists
  if (st.setup.children && st.setup.delegation_depth < st.setup.max_delegation_depth)
    for (const auto& s : st.setup.spawnable) capsules.push_back(s.capsule);
  spawn_member_egress(self, callees, capsules);
  spawn_member_door(self, callees, capsules);

  return {
    // The door is handed to whoever serves it; the launch task starts only after that, so that
    // a task which ends at once cannot end the member before its door is handed out.
    [=](caf::get_atom) -> door_handle {
      start_launch_task(self);
      return self->state.door;
    },
    [=](address_atom, const std::vector<MemberText>& addresses) {
      if (self->state.egress) self->send(self->state.egress, address_atom_v, addresses);
    },
    [=](lifeline_atom) { on_lifeline(self); },
    [=](sigterm_atom) {
      if (self->state.phase == Phase::winding_down) {
        end_session(self, "canceled"); // a second SIGTERM ends at once
        return;
      }
      wind_down(self, "sigterm");
    },
    [=](deadline_atom) { wind_down(self, "deadline"); },
    // A task's actor ended (the door recorded it): every one is told; the launch task also once.
    [=](task_end_atom, const TaskView& t) {
      auto& s = self->state;
      if (s.setup.supervisor) self->send(s.setup.supervisor, task_end_atom_v, t);
      if (!s.launch_task_id.empty() && t.id == s.launch_task_id) report_launch(self, t);
    },
    [=](ended_atom) { on_door_empty(self); },
    // A task waits for a person's answer: the launch task's question goes to whoever waits for it.
    [=](const TaskAsks& a) {
      auto& s = self->state;
      if (s.launch_task_id.empty() || a.task_id != s.launch_task_id || !s.setup.supervisor) return;
      TaskView asking;
      asking.id = a.task_id;
      asking.state = TaskState::input_required;
      asking.status_text = a.text;
      self->send(s.setup.supervisor, TaskEvent{asking, {}});
    },
  };
}

} // namespace

member_handle spawn_member(caf::actor_system& sys, MemberSetup setup) {
  return sys.spawn(member, std::move(setup));
}

} // namespace mur
