#include "sim_world.hpp"

#include "actors/atoms.hpp"
#include "actors/lifeline.hpp"
#include "actors/member.hpp"
#include "actors/trace_recorder.hpp"
#include "member/script_model.hpp"
#include "messages/door_authorization.hpp"
#include "messages/door_call.hpp"
#include "messages/door_request.hpp"
#include "messages/door_token.hpp"
#include "messages/formation_messages.hpp"
#include "messages/formation_verifier.hpp"
#include "messages/ids.hpp"

#include <caf/all.hpp>

namespace mur::sim {
namespace {

using unplug_atom = caf::atom_constant<caf::atom("unplug")>;

using broken_atom = caf::atom_constant<caf::atom("broken")>;

struct NetworkState {
  std::map<std::string, std::pair<caf::actor, DoorKeys>> doors;
  std::set<std::string> broken; // urls whose streams break
  static inline const char* name = "sim.network";
};

caf::behavior network(caf::stateful_actor<NetworkState>* self) {
  return {
    [=](caf::put_atom, const std::string& url, const caf::actor& door, const DoorKeys& keys) {
      self->state.doors[url] = {door, keys};
    },
    [=](unplug_atom, const std::string& url) { self->state.doors.erase(url); },
    [=](broken_atom, const std::string& url) { self->state.broken.insert(url); },
    [=](const DoorCallTo& to, const Bearer& bearer, DoorRequest req) -> caf::result<DoorReply> {
      auto it = self->state.doors.find(to.url);
      if (it == self->state.doors.end()) return caf::make_error(caf::sec::request_receiver_down);
      std::vector<std::string> header;
      if (bearer.token) header.push_back("Bearer " + bearer.token->expose());
      std::vector<std::string_view> views(header.begin(), header.end());
      req.verdict = verify_authorization(views, *it->second.second.issuer, it->second.second.verifier.get());
      if (req.method == "SubscribeToTask" && self->state.broken.count(to.url)) {
        auto subscriber = caf::actor_cast<caf::actor>(self->current_sender());
        auto rp = self->make_response_promise<DoorReply>();
        req.method = "GetTask"; // answered like a stream's first event, but nothing follows
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
  caf::actor member;
  caf::actor trace;
  std::string url;
  std::int32_t code = 137; // killed unless it said otherwise
  caf::actor watch;        // the member side of its lifeline (held here, as a process holds its thread)
  TaskView launch_task;    // --task: how the one task ended (what a real entry prints)
  bool alive = true;
};

struct SpawnerState {
  std::map<std::string, Manifest> manifests;
  caf::actor network;
  Knobs knobs;
  caf::actor launcher;
  std::map<std::string, Running> members;
  std::map<caf::actor_addr, std::string> by_addr;
  int next_port = 41000;
  // Actors this port started beside each member (trace, model); closed when the port ends, so a
  // simulation leaves nothing running whatever references the dead members still hold.
  std::shared_ptr<std::vector<caf::actor>> owned = std::make_shared<std::vector<caf::actor>>();
  static inline const char* name = "sim.spawner";
};

using spawner_actor = caf::stateful_actor<SpawnerState>;

caf::behavior spawner(spawner_actor* self, std::map<std::string, Manifest> manifests, caf::actor net, Knobs knobs) {
  self->state.manifests = std::move(manifests);
  self->state.network = std::move(net);
  self->state.knobs = std::move(knobs);
  self->attach_functor([owned = self->state.owned](const caf::error&) {
    for (auto& a : *owned) caf::anon_send_exit(a, caf::exit_reason::kill);
    owned->clear();
  });
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto& st = self->state;
    auto it = st.by_addr.find(dm.source);
    if (it == st.by_addr.end()) return;
    const std::string name = it->second;
    self->send(st.network, unplug_atom::value, st.members[name].url);
    st.members[name].alive = false;
    if (st.launcher) self->send(st.launcher, MemberExited{name, st.members[name].code});
  });
  return {
    [=](const SpawnMember& sm, const BundleRef& ref) -> caf::result<MemberStarted, caf::actor> {
      auto& st = self->state;
      st.launcher = caf::actor_cast<caf::actor>(self->current_sender());
      if (st.knobs.fail_spawn.count(sm.name) || !st.manifests.count(sm.name))
        return caf::make_error(caf::sec::cannot_spawn_actor_from_arguments);
      const Manifest& m = st.manifests[sm.name];
      auto& sys = self->system();
      // The bundle crosses the channel as its line, and is read back and verified as a member would.
      auto bundle = std::make_shared<const FormationBundle>(parse_bundle(render_bundle(*ref.bundle), sm.formation_id));

      MemberSetup ms;
      ms.session_id = ids::mint(ids::session);
      ms.capsule_name = m.name;
      ms.capsule_version = m.version;
      ms.formation_id = sm.formation_id;
      ms.member = sm.name;
      ms.bundle = bundle;
      ms.acceptance.kind = m.lifecycle.task_acceptance == TaskAcceptance::none     ? AcceptancePolicy::Kind::none
                           : m.lifecycle.task_acceptance == TaskAcceptance::queue ? AcceptancePolicy::Kind::queue
                                                                                   : AcceptancePolicy::Kind::single;
      ms.acceptance.queue_depth = m.lifecycle.queue_depth;
      ms.acceptance.exit_after_task = m.lifecycle.after_task == AfterTask::exit;
      ms.acceptance.retention.max_tasks = static_cast<std::size_t>(m.lifecycle.retain_tasks_max);
      ms.acceptance.retention.max_age = m.lifecycle.retain_tasks_max_age;
      if (sm.entry) { // the entry takes tasks one at a time; with --task it exits after it
        ms.acceptance.kind = AcceptancePolicy::Kind::single;
        ms.acceptance.exit_after_task = !sm.task.empty();
      }
      ms.authenticated = m.authentication.has_value();
      ms.accepts_peer_tasks = m.accepts_peer_tasks;
      ms.allows_localhost = m.allows_localhost();
      ms.max_turns = m.inference.max_turns;
      ms.call_deadline = std::chrono::seconds(m.lifecycle.delegation_deadline_secs);
      ms.launch_task = sm.task;
      ms.trace = spawn_trace_recorder(sys, ms.session_id);
      ms.network = st.network;
      ms.model = spawn_script_model(sys, m.inference);
      ms.supervisor = self;
      st.owned->push_back(ms.trace);
      st.owned->push_back(ms.model);
      const std::string session = ms.session_id;
      auto trace = ms.trace;
      auto member = spawn_member(sys, std::move(ms));

      const std::string url = "http://127.0.0.1:" + std::to_string(st.next_port++);
      Running r;
      r.member = member;
      r.trace = trace;
      r.url = url;
      st.members[sm.name] = r;
      st.by_addr[member.address()] = sm.name;
      self->monitor(member);

      DoorKeys keys{std::make_shared<DoorTokenIssuer>(),
                    std::make_shared<FormationVerifier>(sm.formation_id, sm.name, bundle->verify_key)};
      auto rp = self->make_response_promise<MemberStarted, caf::actor>();
      self->request(member, caf::infinite, caf::get_atom::value).then([=](const caf::actor& door) mutable {
        auto& s = self->state;
        // A member "never ready" answers its probe as some other session.
        self->send(s.network, caf::put_atom::value, url, door, keys);
        if (s.knobs.broken_streams.count(sm.name)) self->send(s.network, broken_atom::value, url);
        if (!sm.addresses.empty()) self->send(member, address_atom::value, sm.addresses);
        auto end = spawn_lifeline_end(self->system());
        s.members[sm.name].watch = spawn_lifeline_watch(self->system(), end, member);
        const std::string reported = s.knobs.never_ready.count(sm.name) ? ids::mint(ids::session) : session;
        rp.deliver(MemberStarted{sm.name, reported, url, 0}, end);
      });
      return rp;
    },
    [=](const SendAddresses& sa) {
      auto& st = self->state;
      if (st.knobs.withhold_addresses.count(sa.name)) return;
      auto it = st.members.find(sa.name);
      if (it != st.members.end()) self->send(it->second.member, address_atom::value, sa.addresses);
    },
    [=](const KillMember& k) {
      auto it = self->state.members.find(k.name);
      if (it != self->state.members.end()) self->send_exit(it->second.member, caf::exit_reason::kill);
    },
    [=](const TaskEvent& ev) {
      for (auto& [name, r] : self->state.members)
        if (caf::actor_cast<caf::actor>(self->current_sender()) == r.member) r.launch_task = ev.task;
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
      self->delegate(it->second.trace, trace_atom::value);
      return caf::delegated<std::vector<std::string>>{};
    },
    [=](caf::get_atom, const std::string& name) -> caf::actor { // a member's actor (for tests)
      auto it = self->state.members.find(name);
      return it == self->state.members.end() || !it->second.alive ? caf::actor{} : it->second.member;
    },
  };
}

struct LogState {
  std::vector<FormationProgress> lines;
  static inline const char* name = "sim.progress";
};

caf::behavior progress_log(caf::stateful_actor<LogState>* self) {
  return {
    [=](const FormationProgress& p) { self->state.lines.push_back(p); },
    [=](caf::get_atom) -> std::vector<FormationProgress> { return self->state.lines; },
  };
}

} // namespace

caf::actor spawn_sim_spawner(caf::actor_system& sys, std::map<std::string, Manifest> manifests, caf::actor network,
                             Knobs knobs) {
  return sys.spawn(spawner, std::move(manifests), std::move(network), std::move(knobs));
}
caf::actor spawn_sim_network(caf::actor_system& sys) { return sys.spawn(network); }
caf::actor spawn_progress_log(caf::actor_system& sys) { return sys.spawn(progress_log); }

} // namespace mur::sim
