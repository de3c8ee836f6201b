// Calls carry their chain across real processes: the chain rides the A2A message as the call
// extension's metadata, each door ends it with the caller its token names, and a call back up
// the chain is refused before anything is sent; roster.yaml's allow_cycles and limits reach the
// members in their bundle; mur run prints W-ROS-004 for the loop in the roster.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "script_chain.hpp"
#include "run_command.hpp"

#include <filesystem>
#include <fstream>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// lead → a → b, and b's script calls a back.
struct RoundFormation : ScriptChain {
  explicit RoundFormation(const std::string& roster_extra = "")
    : ScriptChain("round",
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: a, task: \"go {{task}}\"}\n"
                  "    - reply: \"lead: {{answer.a}}\"\n" + entry(),
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: b, task: \"from a\"}\n"
                  "    - reply: \"a: {{answer.b}}\"\n" + peer(),
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: a, task: \"back to a\"}\n"
                  "    - reply: \"b answered\"\n" + peer(),
                  "  - {from: b, to: [a]}\n" + roster_extra) {}
};

std::vector<json> of_type(const std::vector<json>& trace, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : trace)
    if (e.is_object() && e.value("event_type", "") == type) out.push_back(e);
  return out;
}

} // namespace

TEST_CASE("a call back up its chain is refused across processes, before anything is sent", "[process][chain]") {
  RoundFormation rf;
  Ran r = run_command({MUR_BINARY, "run", "--roster", rf.f.project.path, "--task", "now", "--deadline", "60s"}, rf.f.env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "lead: a: b answered\n");
  CHECK(r.err.find("W-ROS-004") != std::string::npos); // the loop in the roster, warned before the run
  auto traces = rf.f.traces(formation_id_in(r.err));
  auto refused = of_type(traces["b"], "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["cause"] == "cycle");
  CHECK(refused[0]["reason"].get<std::string>().find("lead \u2192 a \u2192 b \u2192 a") != std::string::npos);
  CHECK(of_type(traces["a"], "a2a_task_received").size() == 1);
  REQUIRE(of_type(traces["b"], "task_start").size() == 1);
  CHECK(of_type(traces["b"], "task_start")[0]["chain"] == json::array({"lead", "a"}));
}

TEST_CASE("roster.yaml's limits.max_depth reaches every member", "[process][chain]") {
  RoundFormation rf("allow_cycles: true\nlimits: {max_depth: 2}\n");
  Ran r = run_command({MUR_BINARY, "run", "--roster", rf.f.project.path, "--task", "now", "--deadline", "60s"}, rf.f.env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "lead: a: b answered\n");
  CHECK(r.err.find("W-ROS-004") == std::string::npos); // cycles were chosen
  auto traces = rf.f.traces(formation_id_in(r.err));
  auto refused = of_type(traces["b"], "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["cause"] == "depth");
}
