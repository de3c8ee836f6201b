// The launcher actor's own rules, under CAF's test scheduler with simulated time, against a spawn
// port of this file that only records: each member's bundle carries exactly one token per roster
// edge of that member (docs/spec/door.md §Formation tokens); ending a formation closes every
// lifeline and sends KillMember 25 s later to what still runs (docs/spec/formation.md §How a
// formation ends); the signing key is dropped once every member is reaped.
// The recording port starts no member: a member "obeys" its lifeline (exits with status 0 when
// its end closes) or is "deaf" to it (runs until KillMember), so what the launcher does, and
// when, is all there is to see.
#include "formation_fixture.hpp"

#include "actors/lifeline.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/credentials/formation_verifier.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

// The spawn port, plus: `get_atom` → every bundle it was handed, as its channel line (spawn
// order); `(get_atom, get_atom)` → the members it was told to kill (in order).
using recording_spawner = spawn_port::extend<caf::replies_to<caf::get_atom>::with<std::vector<std::string>>,
                                             caf::replies_to<caf::get_atom, caf::get_atom>::with<std::vector<std::string>>>;

struct RecorderState {
  std::set<std::string> obey;          // members that end when their lifeline closes
  spawn_listener launcher;
  std::vector<std::string> bundles;
  std::vector<std::string> killed;
  std::set<std::string> running;
  std::map<caf::actor_addr, std::string> ends; // lifeline end → member
  // The ends it made, killed when it ends (its state is gone by then: CAF destroys an actor's
  // state before its attached functors run).
  std::shared_ptr<std::vector<caf::actor>> owned = std::make_shared<std::vector<caf::actor>>();
  int next_port = 42000;
  static inline const char* name = "sim.recording_spawner";
};

recording_spawner::behavior_type recorder(recording_spawner::stateful_pointer<RecorderState> self, std::set<std::string> obey) {
  self->state.obey = std::move(obey);
  self->attach_functor([owned = self->state.owned](const caf::error&) {
    for (auto& a : *owned) caf::anon_send_exit(a, caf::exit_reason::kill);
  });
  auto exited = [=](const std::string& name, std::int32_t code) {
    auto& st = self->state;
    if (!st.running.erase(name)) return;
    self->send(st.launcher, MemberExited{name, code, ""});
  };
  self->set_down_handler([=](const caf::down_msg& dm) { // a lifeline end went: its member saw EOF
    auto it = self->state.ends.find(dm.source);
    if (it != self->state.ends.end() && self->state.obey.count(it->second)) exited(it->second, 0);
  });
  return {
    [=](const SpawnMember& sm, const BundleRef& ref) -> caf::result<MemberStarted, lifeline_end> {
      auto& st = self->state;
      st.launcher = caf::actor_cast<spawn_listener>(self->current_sender());
      st.bundles.push_back(render_bundle(*ref.bundle));
      auto end = spawn_lifeline_end(self->system());
      st.owned->push_back(caf::actor_cast<caf::actor>(end));
      self->monitor(end);
      st.ends[end.address()] = sm.name;
      st.running.insert(sm.name);
      const std::string url = "http://127.0.0.1:" + std::to_string(st.next_port++);
      return caf::result<MemberStarted, lifeline_end>(MemberStarted{sm.name, "ses-of " + url, url, 0}, end);
    },
    [=](const SendAddresses&) {},
    [=](const KillMember& k) {
      self->state.killed.push_back(k.name);
      exited(k.name, 137); // as SIGKILL, then reaped
    },
    [=](caf::get_atom) { return self->state.bundles; },
    [=](caf::get_atom, caf::get_atom) { return self->state.killed; },
  };
}

// Every probed door answers as the session the recorder reported for its url.
network_port::behavior_type card_network() {
  return {
    [](const DoorCallTo& to, const Bearer&, const DoorRequest&) {
      DoorReply r;
      r.session_id = "ses-of " + to.url;
      return r;
    },
  };
}

struct launcher_fixture : test_coordinator_fixture<sim_config> {
  recording_spawner spawner;
  network_port network;
  progress_log_actor progress;
  launcher_handle launcher;

  ~launcher_fixture() override {
    sys.await_actors_before_shutdown(false);
    for (auto a : {caf::actor_cast<caf::actor>(launcher), caf::actor_cast<caf::actor>(spawner),
                   caf::actor_cast<caf::actor>(network), caf::actor_cast<caf::actor>(progress)})
      if (a) anon_send_exit(a, caf::exit_reason::kill);
    sched.run();
    sched.clock().cancel_all();
    sched.run();
  }

  // Members in roster order, the first one the entry; `task` "" ⇒ serve mode. The launcher's
  // timings are its defaults.
  void launch(std::vector<PlannedMember> members, std::set<std::string> obey = {}, std::string task = "") {
    spawner = sys.spawn(recorder, std::move(obey));
    network = sys.spawn(card_network);
    progress = spawn_progress_log(sys);
    LauncherSetup ls;
    ls.members = std::move(members);
    ls.task = std::move(task);
    ls.spawn = spawn_port{spawner};
    ls.network = network;
    ls.reporter = progress_port{progress};
    ls.ids = IdClockSpec{true, 21};
    launcher = spawn_launcher(sys, std::move(ls));
    sched.run();
  }
  template <class T, class Handle, class... Ts>
  T ask(const Handle& who, Ts&&... xs) {
    self->send(who, std::forward<Ts>(xs)...);
    sched.run();
    return received<T>(self);
  }
  void advance(std::chrono::milliseconds d) {
    sched.clock().advance_time(d);
    sched.run();
  }
  std::vector<std::string> killed() { return ask<std::vector<std::string>>(spawner, caf::get_atom_v, caf::get_atom_v); }
  bool ended() {
    for (const auto& p : ask<std::vector<FormationProgress>>(progress, caf::get_atom_v))
      if (p.event == FormationEvent::ended) return true;
    return false;
  }
};

} // namespace

TEST_CASE_METHOD(launcher_fixture, "each member's bundle carries exactly one token per roster edge of its own, none naming the entry",
                 "[sim][launcher][credentials]") {
  // lead → a, b;  a → b, c;  c → a (and the entry, which admission refuses: no credential names
  // it all the same);  b calls no one.
  launch({PlannedMember{"lead", true, {"a", "b"}, "lead-c@1"}, PlannedMember{"a", false, {"b", "c"}, "a-c@1"},
          PlannedMember{"b", false, {}, "b-c@1"}, PlannedMember{"c", false, {"a", "lead"}, "c-c@1"}});
  const std::string frm = ask<std::string>(launcher, caf::get_atom_v);
  const auto lines = ask<std::vector<std::string>>(spawner, caf::get_atom_v);
  REQUIRE(lines.size() == 4); // every peer, then the entry once they were ready
  const std::map<std::string, std::vector<std::string>> edges{
    {"lead", {"a", "b"}}, {"a", {"b", "c"}}, {"b", {}}, {"c", {"a"}}};
  std::set<std::string> tokens;
  std::optional<FormationVerifyKey> key;
  std::size_t count = 0;
  for (const auto& line : lines) {
    const FormationBundle b = parse_bundle(line, frm);
    INFO(b.member);
    REQUIRE(edges.count(b.member));
    if (!key) key = b.verify_key;
    CHECK(b.verify_key == *key); // one key pair for the whole formation
    std::vector<std::string> names;
    for (const auto& c : b.calls) {
      names.push_back(c.name);
      // Each token is good at its callee's door only, and names this member as the caller.
      const FormationVerdict at_callee = FormationVerifier(frm, c.name, b.verify_key).verify(c.token);
      CHECK(at_callee.ok());
      CHECK(at_callee.caller == b.member);
      for (const auto& other : {"lead", "a", "b", "c"})
        if (other != c.name) CHECK_FALSE(FormationVerifier(frm, other, b.verify_key).verify(c.token).ok());
      tokens.insert(c.token.expose());
      ++count;
    }
    CHECK(names == edges.at(b.member)); // exactly its edges, in roster order
  }
  CHECK(count == 5);         // one per edge: lead→a, lead→b, a→b, a→c, c→a
  CHECK(tokens.size() == 5); // and no two alike
}

TEST_CASE_METHOD(launcher_fixture, "ending a formation closes every lifeline and kills what still runs 25 s later",
                 "[sim][launcher][ending]") {
  // `a` ends when its lifeline closes; the entry and `b` do not (a member deaf to its lifeline).
  launch({PlannedMember{"lead", true, {"a"}, "lead-c@1"}, PlannedMember{"a", false, {}, "a-c@1"},
          PlannedMember{"b", false, {}, "b-c@1"}},
         {"a"});
  advance(1s);
  REQUIRE(ask<std::vector<std::string>>(spawner, caf::get_atom_v).size() == 3); // all three started
  anon_send(launcher, sigterm_atom_v, std::int32_t{15});
  sched.run();
  advance(24'999ms);
  CHECK(killed().empty()); // within the grace nothing is killed, however long a member takes
  CHECK_FALSE(ended());
  advance(1ms);
  CHECK(killed() == std::vector<std::string>{"b", "lead"}); // `a` had ended: only what still ran
  CHECK(ended());
}

TEST_CASE_METHOD(launcher_fixture, "the signing key is held until the last member is reaped, then dropped with the launcher",
                 "[sim][launcher][credentials]") {
  // The key lives only in the launcher actor's state (a FormationAuthority, which sodium_free's
  // it); CAF destroys an actor's state before its monitors hear that it ended, so the launcher's
  // down message is the moment the key is gone.
  launch({PlannedMember{"lead", true, {}, "lead-c@1"}, PlannedMember{"a", false, {}, "a-c@1"}}, {"lead"});
  advance(1s);
  self->monitor(launcher);
  bool down = false;
  auto down_yet = [&] {
    self->receive([&](caf::down_msg&) { down = true; }, caf::after(0s) >> [] {});
    return down;
  };
  anon_send(launcher, sigterm_atom_v, std::int32_t{15});
  sched.run();
  // The entry ended with its lifeline; `a` still runs: the formation is not over, the key is kept.
  advance(10s);
  CHECK_FALSE(down_yet());
  CHECK_FALSE(ended());
  advance(15s); // the grace: `a` is killed and reaped
  CHECK(killed() == std::vector<std::string>{"a"});
  CHECK(ended());
  CHECK(down_yet());
}
