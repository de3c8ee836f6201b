// sim_children.cpp — see sim_children.hpp.
#include "sim_atoms.hpp"
#include "sim_children.hpp"

#include "actors/atoms.hpp"
#include "actors/lifeline.hpp"
#include "actors/member.hpp"
#include "actors/trace_recorder.hpp"
#include "capsule/member_wiring.hpp"
#include "capsule/script_model.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/door_call.hpp"

#include <caf/all.hpp>

#include <optional>

namespace mur::sim {
namespace {

struct Child {
  member_handle member;
  trace_port trace;
  lifeline_end end;
  std::string url;
  bool alive = true;
};

struct ChildrenState {
  SimChildrenSetup setup;
  std::optional<IdClock> clock;
  std::map<std::string, Child> children; // by call id
  std::shared_ptr<std::vector<lifeline_end>> ends = std::make_shared<std::vector<lifeline_end>>();
  caf::actor_addr parent;
  static inline const char* name = "sim.children";
};

using children_actor = sim_children_actor::stateful_base<ChildrenState>;

sim_children_actor::behavior_type children(children_actor* self, SimChildrenSetup setup) {
  self->state.setup = std::move(setup);
  self->state.clock.emplace(self->state.setup.ids, self->clock(), "sim.children");
  // The parent's process is gone: every spawner lifeline it held closes.
  self->attach_functor([ends = self->state.ends](const caf::error&) {
    for (auto& e : *ends) caf::anon_send_exit(e, caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([=](const caf::down_msg& dm) {
    if (dm.source == self->state.parent) { // the parent's "process" exited: its write ends close
      for (auto& e : *self->state.ends) self->send(e, caf::close_atom_v);
      return;
    }
    for (auto& [id, c] : self->state.children)
      if (c.member.address() == dm.source && c.alive) {
        c.alive = false;
        self->send(self->state.setup.network, unplug_atom_v, c.url);
        if (self->state.setup.live) self->send(self->state.setup.live, FreeLiveSlot{id}); // the child is gone
      }
  });
  return {
    [=](const StartChild& sc) -> caf::result<ChildStarted, Bearer> {
      auto& st = self->state;
      auto it = st.setup.installed.find(sc.capsule + "@" + sc.version);
      if (it == st.setup.installed.end() || st.setup.fail_start.count(sc.capsule)) {
        if (st.setup.live) self->send(st.setup.live, FreeLiveSlot{sc.call_id}); // none started: its slot goes back
        return {ChildStarted{sc.call_id, "", "", 0, sc.capsule + "@" + sc.version + " cannot be started (simulated)"}, Bearer{}};
      }
      auto& sys = self->system();
      const Manifest& m = it->second;
      LaunchOptions launch;
      launch.session_id = st.clock->mint(ids::session);
      launch.formation_id = st.setup.formation_id;
      launch.task_acceptance = "single";
      launch.after_task = "sleep"; // as the real port: it ends when the parent ends the delegation
      MemberPorts ports;
      ports.trace = spawn_trace_recorder(sys, launch.session_id, {}, st.setup.ids);
      ports.network = network_port{st.setup.network};
      ports.model = spawn_script_model(sys, m.inference);
      ports.supervisor = supervisor_port{self};
      ports.ids = st.setup.ids;
      ports.live = st.setup.live;
      if (!m.spawn_allow.empty()) { // grandchildren: a child port of its own
        SimChildrenSetup grand = st.setup;
        grand.parent_session = launch.session_id;
        grand.parent_depth = st.setup.parent_depth + 1;
        auto port = spawn_sim_children(sys, std::move(grand));
        st.setup.owned->push_back(caf::actor_cast<caf::actor>(port));
        ports.children = child_port{port};
      }
      MemberSetup ms = member_setup(m, launch, std::move(ports));
      ms.authenticated = true; // a child's door always requires its operator credential
      ms.spawned_by = st.setup.parent_session;
      ms.delegation_id = sc.call_id;
      ms.delegation_depth = st.setup.parent_depth + 1; // as the real port's grant says
      auto trace = ms.trace;
      auto member = spawn_member(sys, std::move(ms));
      self->monitor(member);
      auto end = spawn_lifeline_end(sys);
      auto watch = spawn_lifeline_watch(sys, end, lifeline_listener{member});
      st.ends->push_back(end);
      for (const auto& a : {caf::actor_cast<caf::actor>(member), caf::actor_cast<caf::actor>(trace),
                            caf::actor_cast<caf::actor>(end), watch})
        st.setup.owned->push_back(a);
      const std::string url = "http://127.0.0.1:" + std::to_string((*st.setup.next_port)++);
      st.children[sc.call_id] = Child{member, trace, end, url, true};
      auto issuer = std::make_shared<DoorTokenIssuer>();
      auto token = std::make_shared<const DoorToken>(issuer->issue({}).at(0).token);
      auto rp = self->make_response_promise<ChildStarted, Bearer>();
      const std::string session = launch.session_id;
      self->request(member, caf::infinite, caf::get_atom_v).then([=](const door_handle& door) mutable {
        self->state.setup.owned->push_back(caf::actor_cast<caf::actor>(door));
        self->send(self->state.setup.network, caf::put_atom_v, url, door, DoorKeys{issuer, nullptr});
        rp.deliver(ChildStarted{sc.call_id, session, url, 0, ""}, Bearer{nullptr, token});
      });
      return rp;
    },
    [=](const EndChild& e) {
      auto it = self->state.children.find(e.call_id);
      if (it != self->state.children.end()) self->send(it->second.end, caf::close_atom_v);
    },
    [=](caf::link_atom, const member_handle& parent) {
      self->state.parent = parent.address();
      self->monitor(parent);
    },
    [=](task_end_atom, const TaskView&) {},
    [=](const TaskEvent&) {},
    [=](ended_atom, const std::string&, std::int32_t) {},
    [=](trace_atom, const std::string& call_id) -> caf::result<std::vector<std::string>> {
      auto it = self->state.children.find(call_id);
      if (it == self->state.children.end()) return std::vector<std::string>{};
      self->delegate(it->second.trace, trace_atom_v);
      return caf::delegated<std::vector<std::string>>{};
    },
    [=](caf::get_atom, const std::string& call_id) -> bool {
      auto it = self->state.children.find(call_id);
      return it != self->state.children.end() && it->second.alive;
    },
  };
}

} // namespace

sim_children_actor spawn_sim_children(caf::actor_system& sys, SimChildrenSetup setup) {
  if (!setup.next_port) setup.next_port = std::make_shared<int>(43000);
  return sys.spawn(children, std::move(setup));
}

} // namespace mur::sim
