#include "sim_atoms.hpp"
#include "sim_children.hpp"
#include "sim_live_ledger.hpp"
#include "sim_world.hpp"

#include "actors/atoms.hpp"
#include "actors/lifeline.hpp"
#include "actors/member.hpp"
#include "actors/trace_recorder.hpp"
#include "capsule/member_wiring.hpp"
#include "capsule/script_model.hpp"
#include "messages/credentials/door_authorization.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/formation_messages.hpp"
#include "messages/wire/transport_failure.hpp"

#include <caf/all.hpp>

#include <optional>

namespace mur::sim {
namespace {

struct NetworkState {
  std::map<std::string, std::pair<door_handle, DoorKeys>> doors;
  std::set<std::string> broken; // urls whose streams break
  std::set<std::string> hung;   // urls whose doors answer nothing (a stopped process)
  static inline const char* name = "sim.network";
};

sim_network_actor::behavior_type network(sim_network_actor::stateful_pointer<NetworkState> self) {
  return {
    [=](caf::put_atom, const std::string& url, const door_handle& door, const DoorKeys& keys) {
      self->state.doors[url] = {door, keys};
    },
    [=](unplug_atom, const std::string& url) { self->state.doors.erase(url); },
    [=](broken_atom, const std::string& url) { self->state.broken.insert(url); },
    [=](hang_atom, const std::string& url) { self->state.hung.insert(url); },
    [=](const DoorCallTo& to, const Bearer& bearer, DoorRequest req) -> caf::result<DoorReply> {
      // A stopped process's kernel still takes the connection, and nothing answers it.
      if (self->state.hung.count(to.url)) return self->make_response_promise<DoorReply>();
      auto it = self->state.doors.find(to.url);
      // Nothing listens at an ended member's port: the connection is refused.
      if (it == self->state.doors.end())
        return make_transport_error(TransportFailure::refused, "connection refused");
      std::vector<std::string> header;
      if (bearer.token) header.push_back("Bearer " + bearer.token->expose());
      else if (bearer.door_token) header.push_back("Bearer " + bearer.door_token->expose());
      std::vector<std::string_view> views(header.begin(), header.end());
      req.verdict = verify_authorization(views, *it->second.second.issuer, it->second.second.verifier.get());
      if (req.method == DoorMethod::subscribe_to_task && self->state.broken.count(to.url)) {
        auto subscriber = caf::actor_cast<stream_listener>(self->current_sender());
        auto rp = self->make_response_promise<DoorReply>();
        req.method = DoorMethod::get_task; // answered like a stream's first event, but nothing follows
        self->request(it->second.first, caf::infinite, req).then([=](const DoorReply& r) mutable {
          rp.deliver(r);
          if (r.ok() && !is_terminal(r.task.state)) self->send(subscriber, TaskStreamLost{r.task.id});
        });
        return rp;
      }
      self->delegate(it->second.first, std::move(req));
      return caf::delegated<DoorReply>{};
    },
  };
}

struct Running {
  member_handle member;
  door_handle door;
  trace_port trace;
  std::string url;
  std::int32_t code = 137; // killed unless it said otherwise
  caf::actor watch;        // the member side of its lifeline (held here, as a process holds its thread)
  caf::actor children;     // its child port, when its capsule may delegate (part of its "process")
  TaskView launch_task;    // --task: how the one task ended (what a real entry prints)
  bool alive = true;
};

struct SpawnerState {
  std::map<std::string, Manifest> manifests;
  sim_network_actor network;
  Knobs knobs;
  IdClockSpec ids;
  std::optional<IdClock> clock; // mints the members' session ids
  spawn_listener launcher;
  std::map<std::string, Running> members;
  std::map<caf::actor_addr, std::string> by_addr;
  int next_port = 41000;
  // Every actor this port started: the members, their doors, and what it started beside each
  // (trace, model, lifeline end and watch). All are ended when the port ends — however it ends —
  // so a simulation leaves nothing running, even when a scenario failed half way.
  std::shared_ptr<std::vector<caf::actor>> owned = std::make_shared<std::vector<caf::actor>>();
  std::shared_ptr<int> child_ports = std::make_shared<int>(43000); // every child port's next door port
  live_port live; // the formation's live ledger (knobs.max_live > 0), shared by every member and child port
  static inline const char* name = "sim.spawner";
};

using spawner_actor = sim_spawner_actor::stateful_base<SpawnerState>;

sim_spawner_actor::behavior_type spawner(spawner_actor* self, std::map<std::string, Manifest> manifests,
                                         sim_network_actor net, Knobs knobs, IdClockSpec ids) {
  self->state.manifests = std::move(manifests);
  self->state.network = std::move(net);
  self->state.knobs = std::move(knobs);
  self->state.ids = ids;
  self->state.clock.emplace(ids, self->clock(), "sim.spawner");
  if (self->state.knobs.max_live > 0) {
    auto ledger = spawn_sim_live_ledger(self->system(), self->state.knobs.max_live,
                                        static_cast<int>(self->state.manifests.size()));
    self->state.live = live_port{ledger};
    self->state.owned->push_back(caf::actor_cast<caf::actor>(ledger));
  }
  self->attach_functor([owned = self->state.owned](const caf::error&) {
    for (auto& a : *owned) caf::anon_send_exit(a, caf::exit_reason::kill);
    owned->clear();
  });
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto& st = self->state;
    auto it = st.by_addr.find(dm.source);
    if (it == st.by_addr.end()) return;
    const std::string name = it->second;
    self->send(st.network, unplug_atom_v, st.members[name].url);
    st.members[name].alive = false;

    if (st.launcher) self->send(st.launcher, MemberExited{name, st.members[name].code, ""});
  });
  return {
    [=](const SpawnMember& sm, const BundleRef& ref) -> caf::result<MemberStarted, lifeline_end> {
      auto& st = self->state;
      st.launcher = caf::actor_cast<spawn_listener>(self->current_sender());
      if (st.knobs.fail_spawn.count(sm.name) || !st.manifests.count(sm.name))
        return caf::make_error(caf::sec::cannot_spawn_actor_from_arguments);
      const Manifest& m = st.manifests[sm.name];
      auto& sys = self->system();
      // The bundle crosses the channel as its line, and is read back and verified as a member would.
      auto bundle = std::make_shared<const FormationBundle>(parse_bundle(render_bundle(*ref.bundle), sm.formation_id));

      LaunchOptions launch;
      launch.session_id = st.clock->mint(ids::session);
      launch.formation_id = sm.formation_id;
      launch.bundle = bundle;
      launch.entry = sm.entry;
      launch.task = sm.task;
      MemberPorts ports;
      ports.trace = spawn_trace_recorder(sys, launch.session_id, {}, st.ids);
      ports.network = network_port{st.network};
      ports.model = spawn_script_model(sys, m.inference);
      ports.supervisor = supervisor_port{self};
      ports.ids = st.ids;
      ports.live = st.live;
      caf::actor children;
      if (!m.spawn_allow.empty()) {
        auto port = spawn_sim_children(sys, SimChildrenSetup{st.knobs.installed, st.knobs.fail_children, st.network,
                                                             st.ids, sm.formation_id, launch.session_id, st.owned, 0,
                                                             st.child_ports, st.live});
        children = caf::actor_cast<caf::actor>(port);
        ports.children = child_port{port};
        st.owned->push_back(children);
      }
      st.owned->push_back(caf::actor_cast<caf::actor>(ports.trace));
      st.owned->push_back(caf::actor_cast<caf::actor>(ports.model));
      const std::string session = launch.session_id;
      auto trace = ports.trace;
      auto member = spawn_member(sys, member_setup(m, launch, std::move(ports)));

      const std::string url = "http://127.0.0.1:" + std::to_string(st.next_port++);
      Running r;
      r.member = member;
      r.trace = trace;
      r.url = url;
      r.children = children;
      if (children) self->send(caf::actor_cast<sim_children_actor>(children), caf::link_atom_v, member);
      st.members[sm.name] = r;
      st.by_addr[member.address()] = sm.name;
      self->monitor(member);
      st.owned->push_back(caf::actor_cast<caf::actor>(member));

      DoorKeys keys{std::make_shared<DoorTokenIssuer>(),
                    std::make_shared<FormationVerifier>(sm.formation_id, sm.name, bundle->verify_key)};
      auto rp = self->make_response_promise<MemberStarted, lifeline_end>();
      self->request(member, caf::infinite, caf::get_atom_v).then([=](const door_handle& door) mutable {
        auto& s = self->state;
        // A member "never ready" answers its probe as some other session.
        s.members[sm.name].door = door;
        s.owned->push_back(caf::actor_cast<caf::actor>(door));
        self->send(s.network, caf::put_atom_v, url, door, keys);
        if (s.knobs.broken_streams.count(sm.name)) self->send(s.network, broken_atom_v, url);
        if (!sm.addresses.empty()) self->send(member, address_atom_v, sm.addresses);
        auto end = spawn_lifeline_end(self->system());
        s.members[sm.name].watch = spawn_lifeline_watch(self->system(), end, lifeline_listener{member});
        s.owned->push_back(caf::actor_cast<caf::actor>(end));
        s.owned->push_back(s.members[sm.name].watch);
        const std::string reported = s.knobs.never_ready.count(sm.name) ? s.clock->mint(ids::session) : session;
        rp.deliver(MemberStarted{sm.name, reported, url, 0}, end);
      });
      return rp;
    },
    [=](const SendAddresses& sa) {
      auto& st = self->state;
      if (st.knobs.withhold_addresses.count(sa.name)) return;
      auto it = st.members.find(sa.name);
      if (it != st.members.end()) self->send(it->second.member, address_atom_v, sa.addresses);
    },
    [=](const KillMember& k) {
      auto it = self->state.members.find(k.name);
      if (it == self->state.members.end()) return;
      // As SIGKILL ends a whole process: the member and its door (its tasks follow the door).
      self->send_exit(it->second.member, caf::exit_reason::kill);
      if (it->second.door) self->send_exit(it->second.door, caf::exit_reason::kill);

    },
    [=](hang_atom, const std::string& name) { // as SIGSTOP: its door answers nothing from now on
      auto it = self->state.members.find(name);
      if (it != self->state.members.end()) self->send(self->state.network, hang_atom_v, it->second.url);
    },
    [=](task_end_atom, const TaskView&) {}, // results are read from the doors in tests
    [=](const TaskEvent& ev) {
      for (auto& [name, r] : self->state.members)
        if (self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(r.member)) r.launch_task = ev.task;
    },
    [=](caf::get_atom, const std::string& name, caf::get_atom) -> TaskView {
      auto it = self->state.members.find(name);
      return it == self->state.members.end() ? TaskView{} : it->second.launch_task;
    },
    [=](ended_atom, const std::string& name, std::int32_t code) {
      auto it = self->state.members.find(name);
      if (it != self->state.members.end()) it->second.code = code;
    },
    [=](trace_atom, const std::string& name) -> caf::result<std::vector<std::string>> {
      auto it = self->state.members.find(name);
      if (it == self->state.members.end()) return std::vector<std::string>{};
      self->delegate(it->second.trace, trace_atom_v);
      return caf::delegated<std::vector<std::string>>{};
    },
    [=](children_atom, const std::string& name) -> caf::actor {
      auto it = self->state.members.find(name);
      return it == self->state.members.end() ? caf::actor{} : it->second.children;
    },
    [=](live_atom) { return caf::actor_cast<caf::actor>(self->state.live); },
    [=](caf::get_atom, const std::string& name) -> member_handle { // a member's actor (for tests)
      auto it = self->state.members.find(name);
      return it == self->state.members.end() || !it->second.alive ? member_handle{} : it->second.member;
    },
  };
}

struct LogState {
  std::vector<FormationProgress> lines;
  static inline const char* name = "sim.progress";
};

progress_log_actor::behavior_type progress_log(progress_log_actor::stateful_pointer<LogState> self) {
  return {
    [=](const FormationProgress& p) { self->state.lines.push_back(p); },
    [=](caf::get_atom) -> std::vector<FormationProgress> { return self->state.lines; },
  };
}

} // namespace

sim_spawner_actor spawn_sim_spawner(caf::actor_system& sys, std::map<std::string, Manifest> manifests,
                                    sim_network_actor network, Knobs knobs, IdClockSpec ids) {
  return sys.spawn(spawner, std::move(manifests), std::move(network), std::move(knobs), ids);
}
sim_network_actor spawn_sim_network(caf::actor_system& sys) { return sys.spawn(network); }
progress_log_actor spawn_progress_log(caf::actor_system& sys) { return sys.spawn(progress_log); }

} // namespace mur::sim
