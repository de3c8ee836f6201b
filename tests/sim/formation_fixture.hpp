// formation_fixture.hpp — one whole formation under CAF's test scheduler: the launcher actor,
// the sim spawn port and network, and helpers to read members' traces and the progress lines.
// Ids and times are seeded (IdClockSpec: simulated), so a scenario repeats byte for byte.
// Invariant: however a scenario ends — passed, or failed by an assertion that throws — the
// fixture ends every actor the formation spawned (the spawn port ends its members, their doors
// and everything it started beside them) and the actor system does not wait for any actor that
// still lingers, so a broken rule makes scenarios fail, never hang.
#pragma once

#include "caf_catch.hpp"

#include "actors/atoms.hpp"
#include "actors/launcher.hpp"
#include "capsule/manifest.hpp"
#include "messages/vocabulary/message_types.hpp"
#include "messages/vocabulary/register_block.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/formation_messages.hpp"
#include "messages/wire/register_messages.hpp"
#include "sim_atoms.hpp"
#include "sim_world.hpp"

// The whole CAF API arrives with the test DSL (caf_catch.hpp); nothing more is needed here.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace mur::sim {

struct sim_config : caf::actor_system_config {
  sim_config() {
    register_message_types(*this);
    register_block<caf::id_block::mur_sim>(*this); // the sim's words, after the product's
  }
};

struct formation_fixture : test_coordinator_fixture<sim_config> {
  sim_network_actor network;
  sim_spawner_actor spawner;
  progress_log_actor progress;
  launcher_handle launcher;
  IdClockSpec ids{true, 9}; // seeded: the same ids and timestamps every run
  ChainRule chain_rule;     // roster.yaml's allow_cycles and limits.max_depth, for the next launch
  SpendLimits limits;       // roster.yaml's spending limits, for the next launch
  std::map<std::string, RestartPolicy> restarts; // roster.yaml's `restart:` per member, for the next launch

  ~formation_fixture() override {
    // Whatever state the scenario left: nothing may keep the actor system from shutting down.
    sys.await_actors_before_shutdown(false);
    if (launcher) anon_send_exit(launcher, caf::exit_reason::kill);
    if (spawner) anon_send_exit(spawner, caf::exit_reason::kill); // ends every member it started
    if (network) anon_send_exit(network, caf::exit_reason::kill);
    if (progress) anon_send_exit(progress, caf::exit_reason::kill);
    sched.run();
    // Let pending timers fire (a model still "thinking" holds a promise until its timer fires);
    // bounded, so a timer that re-arms itself cannot keep the fixture here.
    for (int i = 0; i < 100000 && sched.trigger_timeout(); ++i) sched.run();
    sched.clock().cancel_all();
    launcher = nullptr;
    spawner = nullptr;
    network = nullptr;
    progress = nullptr;
    sched.run();
  }

  static Manifest manifest(const std::string& yaml) { return parse_manifest(yaml, "murmur.yaml"); }

  // Starts a formation: members in roster order, the first one the entry.
  void launch(std::vector<std::pair<std::string, std::string>> members, std::map<std::string, std::vector<std::string>> edges,
              std::string task = "", Knobs knobs = {}, std::chrono::milliseconds deadline = {}) {
    std::map<std::string, Manifest> manifests;
    LauncherSetup ls;
    bool first = true;
    for (auto& [name, yaml] : members) {
      Manifest parsed = manifest(yaml);
      ls.members.push_back(PlannedMember{name, first, edges[name], parsed.name + "@" + parsed.version,
                                         restarts.count(name) ? restarts[name] : RestartPolicy{}});
      manifests.emplace(name, std::move(parsed));
      first = false;
    }
    network = spawn_sim_network(sys);
    spawner = spawn_sim_spawner(sys, std::move(manifests), network, std::move(knobs), ids);
    progress = spawn_progress_log(sys);
    ls.spawn = spawn_port{spawner};
    ls.network = network_port{network};
    ls.reporter = progress_port{progress};
    ls.ids = ids;
    ls.task = std::move(task);
    ls.deadline = deadline;
    ls.chain_rule = chain_rule;
    ls.limits = limits;
    launcher = spawn_launcher(sys, std::move(ls));
    sched.run();
  }

  void advance(std::chrono::milliseconds d) {
    sched.clock().advance_time(d);
    sched.run();
  }
  // Advances simulated time in small steps until nothing is pending or `limit` passed.
  void run_for(std::chrono::milliseconds limit, std::chrono::milliseconds step = std::chrono::milliseconds(50)) {
    for (auto t = std::chrono::milliseconds(0); t < limit; t += step) advance(step);
  }

  template <class T, class Handle, class... Ts>
  T ask(const Handle& who, Ts&&... xs) {
    self->send(who, std::forward<Ts>(xs)...);
    sched.run();
    T out{};
    bool got = false;
    self->receive([&](T& x) { out = std::move(x); got = true; },
                  caf::after(std::chrono::seconds(0)) >> [] {});
    REQUIRE(got);
    return out;
  }

  std::vector<nlohmann::json> trace(const std::string& member) {
    std::vector<nlohmann::json> out;
    for (const auto& line : ask<std::vector<std::string>>(spawner, trace_atom_v, member))
      out.push_back(nlohmann::json::parse(line));
    return out;
  }
  std::vector<nlohmann::json> events(const std::string& member, const std::string& type) {
    std::vector<nlohmann::json> out;
    for (auto& e : trace(member))
      if (e["event_type"] == type) out.push_back(e);
    return out;
  }
  std::vector<FormationProgress> progress_lines() { return ask<std::vector<FormationProgress>>(progress, caf::get_atom_v); }
  const FormationProgress* progress_event(const std::string& event) {
    static std::vector<FormationProgress> keep;
    keep = progress_lines();
    for (const auto& p : keep)
      if (to_string(p.event) == event) return &p;
    return nullptr;
  }
  // How the entry's --task ended (what a real entry prints on stdout).
  TaskView launch_task(const std::string& name) {
    return ask<TaskView>(spawner, caf::get_atom_v, name, caf::get_atom_v);
  }
  std::int32_t exit_code() {
    auto* e = progress_event("ended");
    REQUIRE(e);
    return e->exit_code;
  }
  member_handle member_actor(const std::string& name) {
    return ask<member_handle>(spawner, caf::get_atom_v, name);
  }
  door_handle door_of(const std::string& name) { return ask<door_handle>(member_actor(name), caf::get_atom_v); }
  std::vector<TaskView> tasks_of(const std::string& name) {
    return ask<std::vector<TaskView>>(door_of(name), caf::get_atom_v);
  }
};

// A request from a member's operator (the credential `mur send` and the launch task use).
inline DoorRequest from_operator(DoorMethod method) {
  DoorRequest req;
  req.method = method;
  req.verdict.kind = DoorAuthorization::Kind::Ok;
  req.verdict.credential = "operator";
  req.verdict.scopes = DoorScopes::all();
  return req;
}

// Manifests used across scenarios.
// A lead that hands its task to coder and answers with coder's answer.
inline const std::string relay_lead =
  "inference: {turns: [{call: {member: coder, task: 'Do: {{task}}'}}, {reply: 'Lead got: {{answer.coder}}'}]}\n";
inline std::string callee_yaml(const std::string& name, const std::string& inference,
                               const std::string& lifecycle = "{task_acceptance: queue, queue_depth: 1, after_task: sleep}") {
  return "name: " + name + "\nversion: 1.0.0\n" + inference + "lifecycle: " + lifecycle +
         "\nexports: {peer_tasks: {accept: true}}\ncapabilities: {network: {allow: [localhost]}}\n"
         "network: {authentication: {scheme: bearer}}\n";
}
inline std::string entry_yaml(const std::string& name, const std::string& inference,
                              const std::string& extra = "capabilities: {network: {allow: [localhost]}}\n") {
  return "name: " + name + "\nversion: 1.0.0\n" + inference + extra + "network: {authentication: {scheme: bearer}}\n";
}

// The busy formation: the entry calls `a` and `b` in one turn; both call `coder`, which holds one
// task at a time (thinking 1 s), so one of them is turned away busy and keeps offering.
inline void launch_shared_coder(formation_fixture& f, const std::string& task = "build it") {
  const std::string ask_coder =
    "inference: {turns: [{call: {member: coder, task: 'from {{member}}'}}, {reply: '{{member}}: {{answer.coder}}'}]}\n";
  f.launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: [{member: a, task: x}, {member: b, task: y}]}, "
                                          "{reply: 'A={{answer.a}} B={{answer.b}}'}]}\n")},
            {"a", callee_yaml("worker-c", ask_coder)},
            {"b", callee_yaml("worker-c", ask_coder)},
            {"coder", callee_yaml("coder-c", "inference: {turns: [{think_ms: 1000, reply: 'coded {{task}}'}]}\n",
                                  "{task_acceptance: single, after_task: sleep}")}},
           {{"lead", {"a", "b"}}, {"a", {"coder"}}, {"b", {"coder"}}}, task);
}

} // namespace mur::sim
