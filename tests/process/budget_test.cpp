// Budgets across real processes: roster.yaml's limits reach every member in its bundle, a call
// carries what is left as the A2A message's metadata (murmur.budget) and the answer brings its
// usage back (the task's metadata.murmur.usage) to be charged; a task at a limit ends
// budget_exhausted and its caller is told in words; `mur trace show` (text and --json) and
// `mur ps` show what tasks spent (docs/budgets.md).
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "formation_fixture.hpp"
#include "script_chain.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// lead → a → b, each script calling the next.
struct ChainFormation : ScriptChain {
  ChainFormation(const std::string& roster_extra, const std::string& lead_extra = "")
    : ScriptChain("budget",
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: a, task: \"go {{task}}\"}\n"
                  "    - reply: \"lead: {{answer.a}}\"\n" + entry() + lead_extra,
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: b, task: \"from a\"}\n"
                  "    - reply: \"a: {{answer.b}}\"\n" + peer(),
                  "inference:\n  transport: script\n  turns:\n    - reply: \"b answered\"\n" + peer(), roster_extra) {}
  Ran run() {
    return run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "now", "--deadline", "60s"}, f.env);
  }
};

std::vector<json> of_type(const std::vector<json>& trace, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : trace)
    if (e.is_object() && e.value("event_type", "") == type) out.push_back(e);
  return out;
}

} // namespace

TEST_CASE("the roster's max_calls is carried down the chain and exhausted one member down", "[process][budget]") {
  ChainFormation cf("limits: {max_calls: 1}\n");
  Ran r = cf.run();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "lead: a gave no answer (failed): budget exhausted: max_calls (0, the caller's remaining) reached, 0 used\n\n"
                 "[runtime: this answer was given without answers from a (failed).]\n");
  const std::string frm = formation_id_in(r.err);
  auto traces = cf.f.traces(frm);
  // What the lead had left rode its call's message to a's door.
  REQUIRE(of_type(traces["a"], "task_start").size() == 1);
  CHECK(of_type(traces["a"], "task_start")[0]["budget"] == json{{"max_calls", 0}});
  CHECK(of_type(traces["b"], "task_start").empty()); // a's call was never sent
  auto a_end = of_type(traces["a"], "task_end");
  REQUIRE(a_end.size() == 1);
  CHECK(a_end[0]["exit_status"] == "budget_exhausted");
  // a's usage came back with its answer and was charged to the lead.
  auto lead_end = of_type(traces["lead"], "task_end");
  REQUIRE(lead_end.size() == 1);
  // Script models report no tokens: the split is null (n/a), not 0.
  CHECK(lead_end[0]["usage"] == json{{"tokens", 0}, {"model_requests", 3}, {"tool_calls", 0}, {"calls", 1},
                                     {"input_tokens", nullptr}, {"output_tokens", nullptr}, {"reasoning_tokens", nullptr}});
  CHECK(lead_end[0]["own_usage"]["model_requests"] == 2);

  Ran show = run_command({MUR_BINARY, "trace", "show", frm}, cf.f.env);
  INFO(show.out);
  REQUIRE(show.exit_code == 0);
  CHECK(show.out.find("usage: n/a tokens \u00b7 3 requests \u00b7 0 tool calls \u00b7 1 call\n") != std::string::npos); // the lead's task
  CHECK(show.out.find("usage (what each member's tasks spent themselves):\n") != std::string::npos);
  CHECK(show.out.find("  formation  n/a tokens \u00b7 3 requests \u00b7 0 tool calls \u00b7 1 call\n") != std::string::npos);

  Ran as_json = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, cf.f.env);
  const json j = json::parse(as_json.out, nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["usage"] == json{{"tokens", 0}, {"model_requests", 3}, {"tool_calls", 0}, {"calls", 1}, {"input_tokens", nullptr}, {"output_tokens", nullptr}, {"reasoning_tokens", nullptr},
                           {"cost", nullptr}});
  REQUIRE(j["tasks"].size() == 1);
  CHECK(j["tasks"][0]["usage"]["calls"] == 1);
  CHECK(j["tasks"][0]["budget"] == json{{"max_calls", 1}});
  for (const auto& m : j["members"])
    if (m["member"] == "a") CHECK(m["usage"]["model_requests"] == 1);
}

TEST_CASE("a capsule's own limits bound its task and the tree below it", "[process][budget]") {
  ChainFormation cf("", "limits: {max_model_requests: 1}\n");
  Ran r = cf.run();
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("the task ended failed: error: budget exhausted: max_model_requests (1, the capsule's) reached, 1 used") !=
        std::string::npos);
  auto traces = cf.f.traces(formation_id_in(r.err));
  // The lead's one request called a, which had none left to ask its model with.
  auto a_end = of_type(traces["a"], "task_end");
  REQUIRE(a_end.size() == 1);
  CHECK(a_end[0]["reason"] == "budget exhausted: max_model_requests (0, the caller's remaining) reached, 0 used");
  CHECK(of_type(traces["b"], "task_start").empty());
}

TEST_CASE("mur ps shows what a running session's ended tasks spent", "[process][budget]") {
  CapsuleFolder c("name: counter\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n    - reply: \"counted {{task}}\"\n"
                  "lifecycle: {task_acceptance: single, after_task: sleep}\n");
  LaunchedMur run(c.run_argv(), c.env);
  const json ready = json::parse(run.read_line(), nullptr, false);
  REQUIRE(ready.is_object());
  const std::string url = ready["url"];
  for (const char* task : {"one", "two"}) REQUIRE(run_command({MUR_BINARY, "send", url, task}, c.env).exit_code == 0);
  // The trace is flushed within 200 ms of its last event: ask until it is (bounded).
  json j;
  for (int i = 0; i < 50; ++i) {
    j = json::parse(run_command({MUR_BINARY, "ps", "--json"}, c.env).out, nullptr, false);
    REQUIRE(j.is_object());
    REQUIRE(j["sessions"].size() == 1);
    if (j["sessions"][0]["usage"]["model_requests"] == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(j["sessions"][0]["usage"] == json{{"tokens", 0}, {"model_requests", 2}, {"tool_calls", 0}, {"calls", 0},
                                          {"input_tokens", nullptr}, {"output_tokens", nullptr}, {"reasoning_tokens", nullptr}, {"cost", nullptr}});
  Ran text = run_command({MUR_BINARY, "ps"}, c.env);
  CHECK(text.out.find("usage: n/a tokens \u00b7 2 requests \u00b7 0 tool calls \u00b7 0 calls") != std::string::npos);
  run.signal(SIGTERM);
  CHECK(run.wait() == 0);
}
