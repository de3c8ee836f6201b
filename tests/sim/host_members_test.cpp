// Members on another host, under CAF's test scheduler with simulated time: the host's side (a
// host formation, actors/host_formation.hpp) and the launcher's (the route, actors/host_route.hpp),
// each against a local spawn port of this file that only records. What is checked is the
// lifeline across hosts: the host ends its members when beats stop or the launcher's side goes
// (lifelines first, KillMember after the grace), a start answered after that is ended at once,
// and the route tells the launcher of every member of a host it lost, once.
#include "formation_fixture.hpp"

#include "actors/host_formation.hpp"
#include "actors/host_route.hpp"
#include "actors/lifeline.hpp"
#include "lead_bundle.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_channel.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

// What the recording port saw, read by the test between runs of the (single-threaded) test
// scheduler: the bundles it was handed (as lines), whom it was told to kill, whose lifeline closed.
struct Record {
  std::vector<std::string> bundles, killed, closed;
};

// A local spawn port that starts nothing: each start is answered at once, or held until
// `(ok_atom, name)` when the name is in `held`.
using recording_port = spawn_port::extend<caf::reacts_to<caf::ok_atom, std::string>>;

struct RecorderState {
  std::set<std::string> held;
  std::map<std::string, caf::typed_response_promise<MemberStarted, lifeline_end>> waiting;
  std::shared_ptr<Record> seen;
  std::map<caf::actor_addr, std::string> ends;
  std::shared_ptr<std::vector<caf::actor>> owned = std::make_shared<std::vector<caf::actor>>();
  static inline const char* name = "sim.host_recorder";
};

recording_port::behavior_type recorder(recording_port::stateful_pointer<RecorderState> self, std::set<std::string> held,
                                       std::shared_ptr<Record> seen) {
  self->state.held = std::move(held);
  self->state.seen = std::move(seen);
  self->attach_functor([owned = self->state.owned](const caf::error&) {
    for (auto& a : *owned) caf::anon_send_exit(a, caf::exit_reason::kill);
  });
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto it = self->state.ends.find(dm.source);
    if (it != self->state.ends.end()) self->state.seen->closed.push_back(it->second);
  });
  auto started = [=](const std::string& name) {
    auto end = spawn_lifeline_end(self->system());
    self->state.owned->push_back(caf::actor_cast<caf::actor>(end));
    self->monitor(end);
    self->state.ends[end.address()] = name;
    return std::make_pair(MemberStarted{name, "ses-" + name, "http://10.0.0.2:4100", 7}, end);
  };
  return {
    [=](const SpawnMember& sm, const BundleRef& ref) -> caf::result<MemberStarted, lifeline_end> {
      self->state.seen->bundles.push_back(render_bundle(*ref.bundle));
      if (self->state.held.count(sm.name)) {
        auto rp = self->make_response_promise<MemberStarted, lifeline_end>();
        self->state.waiting.emplace(sm.name, rp);
        return rp;
      }
      auto [info, end] = started(sm.name);
      return caf::result<MemberStarted, lifeline_end>(info, end);
    },
    [=](caf::ok_atom, const std::string& name) {
      auto it = self->state.waiting.find(name);
      if (it == self->state.waiting.end()) return;
      auto [info, end] = started(name);
      it->second.deliver(info, end);
      self->state.waiting.erase(it);
    },
    [=](const SendAddresses&) {},
    [=](const KillMember& k) { self->state.seen->killed.push_back(k.name); },
  };
}

// A launcher's side that the test ends when it likes (the host formation watches it).
caf::behavior idle() {
  return {[](caf::get_atom) {}};
}

struct host_fixture : test_coordinator_fixture<sim_config> {
  FormationAuthority authority{"frm_0123456789abcdef0123456789abcdef"};
  std::shared_ptr<Record> seen = std::make_shared<Record>();
  recording_port local;
  caf::actor launcher_side;
  host_formation_actor formation;

  ~host_fixture() override {
    sys.await_actors_before_shutdown(false);
    for (auto a : {caf::actor_cast<caf::actor>(formation), caf::actor_cast<caf::actor>(local), launcher_side})
      if (a) anon_send_exit(a, caf::exit_reason::kill);
    sched.run();
    sched.clock().cancel_all();
    sched.run();
  }
  void open(std::set<std::string> held = {}) {
    local = sys.spawn(recorder, std::move(held), seen);
    launcher_side = sys.spawn(idle);
    HostFormationSetup hs;
    hs.formation_id = authority.formation_id();
    hs.launcher = launcher_side;
    hs.spawn = spawn_port{local};
    hs.identity = LauncherIdentity{4242, "host-start"};
    formation = spawn_host_formation(sys, hs);
    sched.run();
  }
  std::shared_ptr<FormationBundle> bundle_for(FormationAuthority& a, const std::string& member) {
    auto b = std::make_shared<FormationBundle>();
    b->formation_id = a.formation_id();
    b->member = member;
    b->verify_key = a.verify_key();
    b->calls.push_back(FormationCall{"someone", a.mint(member, "someone")});
    return b;
  }
  std::string bundle_of(const std::string& member) { return render_bundle(*bundle_for(authority, member)); }
  template <class T, class Handle, class... Ts>
  T ask(const Handle& who, Ts&&... xs) {
    self->send(who, std::forward<Ts>(xs)...);
    sched.run();
    return received<T>(self);
  }
  // A start asked of the host formation: whether it was answered with a lifeline end.
  bool start(const std::string& member, const std::string& line) {
    self->send(formation, SpawnMember{member, authority.formation_id(), false, "", {}}, HostSecret{line});
    sched.run();
    bool ok = false;
    self->receive([&](const MemberStarted&, const caf::actor& end) { ok = static_cast<bool>(end); },
                  [&](const caf::error&) { ok = false; }, caf::after(0s) >> [] {});
    return ok;
  }
  // Time passes a millisecond at a time, so each timer an actor re-arms fires when it is due.
  void advance(std::chrono::milliseconds d) {
    for (auto i = 0ms; i < d; ++i) {
      sched.clock().advance_time(1ms);
      sched.run();
    }
  }
  void beat() {
    self->send(formation, HostBeat{authority.formation_id()});
    sched.run();
    received<HostBeat>(self);
  }
  std::vector<std::string> closed() { return seen->closed; }
  std::vector<std::string> killed() { return seen->killed; }
  bool formation_alive() {
    bool down = false;
    self->monitor(formation);
    sched.run();
    self->receive([&](const caf::down_msg&) { down = true; }, caf::after(0s) >> [] {});
    if (!down) self->demonitor(formation.address());
    return !down;
  }
};

} // namespace

TEST_CASE_METHOD(host_fixture, "a host formation starts a member only with a bundle for this formation and that member",
                 "[sim][hosts]") {
  open();
  CHECK(start("coder", bundle_of("coder")));
  const auto lines = seen->bundles;
  REQUIRE(lines.size() == 1);
  const FormationBundle handed = parse_bundle(lines[0], authority.formation_id());
  CHECK(handed.member == "coder");
  REQUIRE(handed.launcher.has_value());
  CHECK(handed.launcher->pid == 4242); // the host agent stands for the launcher here
  CHECK_FALSE(start("reviewer", bundle_of("coder")));   // another member's bundle
  CHECK_FALSE(start("reviewer", "{\"not\":\"a bundle\"}"));
  FormationAuthority other{"frm_fedcba9876543210fedcba9876543210"};
  CHECK_FALSE(start("reviewer", render_bundle(*bundle_for(other, "reviewer")))); // another formation's
  CHECK(seen->bundles.size() == 1); // none of those reached the port
}

TEST_CASE_METHOD(host_fixture, "beats keep a host's members, three missed periods close their lifelines, and the grace kills the rest",
                 "[sim][hosts]") {
  open();
  REQUIRE(start("coder", bundle_of("coder")));
  REQUIRE(start("reviewer", bundle_of("reviewer")));
  for (int i = 0; i < 10; ++i) { // ten seconds of beats: nothing ends
    beat();
    advance(1s);
  }
  CHECK(closed().empty());
  advance(2s); // two periods without a beat: still open
  CHECK(closed().empty());
  advance(1s); // the third: lost
  CHECK(closed() == std::vector<std::string>{"coder", "reviewer"});
  CHECK(killed().empty());
  CHECK(formation_alive());
  advance(1499ms);
  CHECK(killed().empty());
  advance(1ms);
  CHECK(killed() == std::vector<std::string>{"coder", "reviewer"});
  CHECK_FALSE(formation_alive());
}

TEST_CASE_METHOD(host_fixture, "the launcher's side gone: lifelines close at once, and a start answered late is ended at once",
                 "[sim][hosts]") {
  open({"reviewer"});
  REQUIRE(start("coder", bundle_of("coder")));
  self->send(formation, SpawnMember{"reviewer", authority.formation_id(), false, "", {}}, HostSecret{bundle_of("reviewer")});
  sched.run();
  anon_send_exit(launcher_side, caf::exit_reason::kill); // its process died, or its connection broke
  sched.run();
  CHECK(closed() == std::vector<std::string>{"coder"});
  self->send(local, caf::ok_atom_v, std::string("reviewer")); // the late answer
  sched.run();
  bool refused = false;
  self->receive([&](const caf::error&) { refused = true; }, [&](const MemberStarted&, const caf::actor&) {},
                caf::after(0s) >> [] {});
  CHECK(refused);
  CHECK(closed() == std::vector<std::string>{"coder", "reviewer"});
  advance(1500ms);
  CHECK(killed() == std::vector<std::string>{"coder", "reviewer"}); // coder never reported that it ended: it too
}

namespace {

// A host whose formation answers no beat, starts every member at once but "slow", whose start
// it never answers.
caf::behavior silent_host() {
  return {[](const HostBeat&) -> caf::result<HostBeat> { return caf::delegated<HostBeat>(); },
          [](const SpawnMember& sm, HostSecret&) -> caf::result<MemberStarted, caf::actor> {
            if (sm.name == "slow") return caf::delegated<MemberStarted, caf::actor>();
            return caf::result<MemberStarted, caf::actor>(MemberStarted{sm.name, "ses", "http://10.0.0.2:1", 1}, caf::actor{});
          }};
}

struct route_fixture : host_fixture {
  host_route_actor route;
  caf::actor gpu1;
  ~route_fixture() override {
    for (auto a : {caf::actor_cast<caf::actor>(route), gpu1})
      if (a) anon_send_exit(a, caf::exit_reason::kill);
    sched.run();
  }
  void open_route() {
    local = sys.spawn(recorder, std::set<std::string>{}, seen);
    gpu1 = sys.spawn(silent_host);
    route = spawn_host_route(sys, HostRouteSetup{spawn_port{local}, {{"coder", "gpu1"}, {"slow", "gpu1"}}, authority.formation_id()});
    self->send(route, caf::put_atom_v, std::string("gpu1"), gpu1);
    sched.run();
  }
};

} // namespace

TEST_CASE_METHOD(route_fixture, "the route reports every member of a host it lost as ended, once, and starts none there after",
                 "[sim][hosts]") {
  open_route();
  auto bundle = bundle_for(authority, "coder");
  self->send(route, SpawnMember{"coder", authority.formation_id(), false, "", {}}, BundleRef{bundle});
  sched.run();
  self->receive([](const MemberStarted&, const lifeline_end&) {}, caf::after(0s) >> [] { FAIL("coder was not started"); });
  // The local member goes to the local port, untouched.
  auto lead = lead_to_coder_bundle(authority);
  self->send(route, SpawnMember{"lead", authority.formation_id(), true, "", {}}, BundleRef{lead});
  sched.run();
  self->receive([](const MemberStarted&, const lifeline_end&) {}, caf::after(0s) >> [] { FAIL("lead was not started"); });
  CHECK(seen->bundles.size() == 1);
  // "slow" is asked of the host, which never answers its start.
  auto slow = bundle_for(authority, "slow");
  self->send(route, SpawnMember{"slow", authority.formation_id(), false, "", {}}, BundleRef{slow});
  sched.run();
  // The beat sent after 1 s goes unanswered for 3 s: the host is lost at 4 s.
  advance(3999ms);
  self->receive([](const MemberExited&) { FAIL("reported before the bound"); },
                [](const caf::error&) { FAIL("slow refused before the bound"); }, caf::after(0s) >> [] {});
  advance(1ms);
  std::optional<MemberExited> gone;
  std::string slow_refusal;
  for (int i = 0; i < 2; ++i)
    self->receive([&](const MemberExited& ex) { gone = ex; },
                  [&](const caf::error& e) {
                    if (e.context().match_element<std::string>(0)) slow_refusal = e.context().get_as<std::string>(0);
                  },
                  caf::after(0s) >> [] {});
  REQUIRE(gone);
  CHECK(gone->name == "coder");
  CHECK(gone->exit_code == 255);
  CHECK(gone->stderr_tail.find("the link to host 'gpu1' was lost") != std::string::npos);
  CHECK(slow_refusal.find("the link to its host 'gpu1' was lost") != std::string::npos); // not at the ready deadline
  self->send(route, MemberExited{"coder", 0, "", ""}); // the host's own report, late: dropped
  sched.run();
  self->receive([](const MemberExited&) { FAIL("reported twice"); }, caf::after(0s) >> [] {});
  self->send(route, SpawnMember{"coder", authority.formation_id(), false, "", {}}, BundleRef{bundle});
  sched.run();
  bool refused = false;
  self->receive([&](const caf::error& e) {
                  refused = e.context().match_element<std::string>(0) &&
                            e.context().get_as<std::string>(0).find("host 'gpu1' was lost") != std::string::npos;
                },
                [](const MemberStarted&, const lifeline_end&) {}, caf::after(0s) >> [] {});
  CHECK(refused);
}
