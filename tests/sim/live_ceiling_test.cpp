// The formation's ceiling of live members and children (docs/roster.md §Limits) under simulated
// time: three capsules that each delegate to the other two, is stopped by the depth limit when
// the ceiling is high and by the ceiling when it is low; every refusal is a tool error naming
// the limit, and every slot is given back once the tree has answered.
#include "formation_fixture.hpp"
#include "sim_live_ledger.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

const std::vector<std::string> bombs{"bomb-x", "bomb-y", "bomb-z"};

// A turn that delegates to each of `to` at once (one delegation per capsule may be out).
std::string delegate_to(const std::vector<std::string>& to, const std::string& task) {
  std::string many;
  for (const auto& c : to) many += std::string(many.empty() ? "" : ", ") + "{capsule: " + c + ", task: '" + task + "'}";
  return "{delegate: [" + many + "]}";
}

std::string spawn_allow_of(const std::vector<std::string>& to) {
  std::string list;
  for (const auto& c : to) list += std::string(list.empty() ? "" : ", ") + c + "@1.0.0";
  return "capabilities: {network: {allow: [localhost]}, spawn: {allow: [" + list + "]}}\n";
}

// Each bomb delegates to the other two and answers once they have (thinking a second, so every
// level is alive at once): the tree recurses until the depth limit or the ceiling stops it.
Knobs bombs_installed(int max_live) {
  Knobs k;
  for (const auto& name : bombs) {
    std::vector<std::string> others;
    for (const auto& o : bombs)
      if (o != name) others.push_back(o);
    k.installed.emplace(name + "@1.0.0",
                        formation_fixture::manifest("name: " + name + "\nversion: 1.0.0\ninference: {turns: [" +
                                                    delegate_to(others, "again") + ", {think_ms: 1000, reply: '" + name +
                                                    " {{tool_results}}'}]}\n" + spawn_allow_of(others)));
  }
  k.max_live = max_live;
  return k;
}

std::string bombing_lead() {
  return entry_yaml("lead-c", "inference: {turns: [" + delegate_to(bombs, "go") + ", {reply: 'lead {{tool_results}}'}]}\n",
                    spawn_allow_of(bombs));
}

struct ceiling_fixture : formation_fixture {
  caf::actor ledger() { return ask<caf::actor>(spawner, live_atom_v); }
  std::int32_t most_held() { return ask<std::int32_t>(ledger(), caf::get_atom_v); }
  std::int32_t held_now() { return ask<std::int32_t>(ledger(), caf::get_atom_v, caf::get_atom_v); }
  std::vector<nlohmann::json> child_events(const std::string& call_id, const std::string& type) {
    auto port = ask<caf::actor>(spawner, children_atom_v, std::string("lead"));
    std::vector<nlohmann::json> out;
    for (const auto& line : ask<std::vector<std::string>>(port, trace_atom_v, call_id)) {
      auto e = nlohmann::json::parse(line);
      if (e["event_type"] == type) out.push_back(e);
    }
    return out;
  }
};

} // namespace

TEST_CASE_METHOD(ceiling_fixture, "a fan-out of capsules delegating to each other stops at depth 3 under a high ceiling",
                 "[sim][delegation][limits]") {
  // 3 + 6 + 12 children: three levels, the third delegating no further; 21 slots of 63.
  launch({{"lead", bombing_lead()}}, {}, "go", bombs_installed(64));
  run_for(30s, 100ms);
  const TaskView done = launch_task("lead");
  REQUIRE(done.state == TaskState::completed);
  CHECK(most_held() == 21);
  CHECK(held_now() == 0); // every delegation ended: every slot is free again
  CHECK(events("lead", "call_refused").empty());
  CHECK(events("lead", "delegation").size() == 3);
  for (const auto& d : events("lead", "delegation")) CHECK(child_events(d["call_id"], "delegation").size() == 2);
}

TEST_CASE_METHOD(ceiling_fixture, "a fan-out of capsules delegating to each other is stopped at the ceiling of live members and children",
                 "[sim][delegation][limits]") {
  // max_live 3: the lead is one, so 2 children at most; the lead's third delegation and every
  // delegation its children try find no slot.
  launch({{"lead", bombing_lead()}}, {}, "go", bombs_installed(3));
  run_for(30s, 100ms);
  const TaskView done = launch_task("lead");
  REQUIRE(done.state == TaskState::completed);
  CHECK(most_held() == 2);
  CHECK(held_now() == 0);
  auto refused = events("lead", "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["cause"] == "live_ceiling");
  CHECK(refused[0]["capsule"] == "bomb-z");
  const std::string why = refused[0]["reason"];
  CHECK(why.find("ceiling of 3 live members and delegated children (limits.max_live in roster.yaml)") !=
        std::string::npos);
  // the model read the refusal beside the two answers
  CHECK(done.answer.find("limits.max_live") != std::string::npos);
  auto delegations = events("lead", "delegation");
  REQUIRE(delegations.size() == 2);
  for (const auto& d : delegations) { // each child's own two delegations were refused, and it answered all the same
    CHECK(d["status"] == "completed");
    auto theirs = child_events(d["call_id"], "call_refused");
    REQUIRE(theirs.size() == 2);
    for (const auto& e : theirs) CHECK(e["cause"] == "live_ceiling");
  }
}

TEST_CASE_METHOD(ceiling_fixture, "a slot given back lets the next delegation start", "[sim][delegation][limits]") {
  // max_live 2: one child at a time. The lead's second delegation of its first turn is refused;
  // once the first has answered and its child has ended, the next turn's delegation finds the
  // slot free.
  Knobs k;
  k.max_live = 2;
  for (const char* leaf : {"leaf-a", "leaf-b"})
    k.installed.emplace(std::string(leaf) + "@1.0.0",
                        formation_fixture::manifest("name: " + std::string(leaf) +
                                                    "\nversion: 1.0.0\ninference: {turns: [{reply: 'done {{task}}'}]}\n"));
  launch({{"lead", entry_yaml("lead-c",
                              "inference: {turns: [" + delegate_to({"leaf-a", "leaf-b"}, "one") + ", " +
                                "{think_ms: 500, " + delegate_to({"leaf-b"}, "two").substr(1) + ", {reply: '{{answers}}'}]}\n",
                              spawn_allow_of({"leaf-a", "leaf-b"}))}},
         {}, "go", k);
  run_for(10s, 100ms);
  const TaskView done = launch_task("lead");
  REQUIRE(done.state == TaskState::completed);
  CHECK(most_held() == 1);
  CHECK(held_now() == 0);
  auto refused = events("lead", "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["capsule"] == "leaf-b");
  CHECK(refused[0]["cause"] == "live_ceiling");
  CHECK(done.answer.find("done two") != std::string::npos); // the slot leaf-a gave back
  CHECK(events("lead", "delegation").size() == 2);
}
