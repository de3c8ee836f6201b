// Cancel follows the tree across real processes: `mur cancel`, Ctrl-C on `mur send` and Ctrl-C
// of `mur run` on a three-member chain (lead → a → b, b thinking for a minute). Every member's
// task ends canceled, its trace says by whom, the answer to the canceller lists what was
// canceled below, and Ctrl-C of the launcher's process group has every member, the entry
// included, record formation_ended.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "script_chain.hpp"
#include "run_command.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct ChainFormation : ScriptChain {
  ChainFormation()
    : ScriptChain("chain",
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: a, task: \"a: {{task}}\"}\n"
                  "    - reply: \"lead: {{answer.a}}\"\n" + entry(),
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: b, task: \"b: {{task}}\"}\n"
                  "    - reply: \"a: {{answer.b}}\"\n" + peer(),
                  "inference:\n  transport: script\n  turns:\n    - {think_ms: 60000, reply: late}\n" + peer()) {}
  std::vector<json> events(const std::string& frm, const std::string& member, const std::string& type) const {
    std::vector<json> out;
    const auto traces = f.traces(frm);
    auto it = traces.find(member);
    if (it == traces.end()) return out;
    for (const auto& e : it->second)
      if (e.is_object() && e.contains("event_type") && e["event_type"] == type) out.push_back(e);
    return out;
  }
  // Waits (a bound, not a speed) until b has started its task: the whole chain is working.
  void until_b_works(const std::string& frm) const {
    const auto until = std::chrono::steady_clock::now() + generous;
    while (events(frm, "b", "task_start").empty() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE_FALSE(events(frm, "b", "task_start").empty());
  }
  // The events of `type` in `member`'s trace once there is one (a bound, not a speed: a trace
  // reaches its file at its next flush).
  std::vector<json> awaited(const std::string& frm, const std::string& member, const std::string& type) const {
    const auto until = std::chrono::steady_clock::now() + generous;
    auto got = events(frm, member, type);
    while (got.empty() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      got = events(frm, member, type);
    }
    return got;
  }
  // Every member's one task ended canceled, by whom the trace says.
  void all_canceled(const std::string& frm, const std::string& lead_by) const {
    for (const auto& [m, by] : std::vector<std::pair<std::string, std::string>>{{"lead", lead_by}, {"a", "caller:lead"}, {"b", "caller:a"}}) {
      INFO(m);
      auto end = awaited(frm, m, "task_end");
      REQUIRE(end.size() == 1);
      CHECK(end[0]["state"] == "canceled");
      CHECK(end[0]["canceled_by"] == by);
    }
    auto calls = awaited(frm, "a", "member_call");
    REQUIRE(calls.size() == 1);
    CHECK(calls[0]["status"] == "canceled");
  }
};

} // namespace

TEST_CASE("mur cancel frm_… cancels the entry's task and the whole chain below it", "[process][cancel]") {
  ChainFormation c;
  LaunchedMur run({MUR_BINARY, "run", "--roster", c.f.project.path, "--json"}, c.f.env);
  Serving s = serve(run);
  LaunchedMur send({MUR_BINARY, "send", s.id(), "go"}, c.f.env);
  c.until_b_works(s.id());

  Ran r = run_command({MUR_BINARY, "cancel", s.id()}, c.f.env);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  check_holds(r.out, {"tsk_", "  canceled  the task was canceled by the operator; canceled below it: a, b\n"});
  CHECK(send.wait() == 1);
  CHECK(send.err().find("the task ended canceled") != std::string::npos);
  c.all_canceled(s.id(), "operator");

  // Nothing runs any more: a second cancel finds nothing to cancel, a task id that ended is named.
  Ran again = run_command({MUR_BINARY, "cancel", s.id()}, c.f.env);
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("nothing was canceled") != std::string::npos);
  const std::string ended = c.awaited(s.id(), "lead", "task_end").at(0)["task_id"];
  Ran named = run_command({MUR_BINARY, "cancel", ended}, c.f.env);
  CHECK(named.exit_code == 1);
  CHECK(named.err.find("E-CAN-003") != std::string::npos);
  Ran unknown = run_command({MUR_BINARY, "cancel", "tsk_0123456789abcdef0123456789abcdef"}, c.f.env);
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("E-CAN-001") != std::string::npos);
  run.signal(SIGTERM);
  CHECK(run.wait() == 128 + SIGTERM);
}

TEST_CASE("Ctrl-C on mur send cancels its task down the chain", "[process][cancel]") {
  ChainFormation c;
  LaunchedMur run({MUR_BINARY, "run", "--roster", c.f.project.path, "--json"}, c.f.env);
  Serving s = serve(run);
  LaunchedMur send({MUR_BINARY, "send", s.id(), "go"}, c.f.env);
  c.until_b_works(s.id());
  send.signal_group(SIGINT);
  CHECK(send.wait() == 130);
  INFO(send.err());
  CHECK(send.err().find("canceled below it: a, b") != std::string::npos);
  c.all_canceled(s.id(), "operator");
  run.signal(SIGTERM);
  CHECK(run.wait() == 128 + SIGTERM);
}

TEST_CASE("Ctrl-C of mur run: every member's task ends canceled and every member, the entry too, records formation_ended",
          "[process][cancel]") {
  ChainFormation c;
  LaunchedMur run({MUR_BINARY, "run", "--roster", c.f.project.path, "--task", "go"}, c.f.env);
  std::string frm;
  const auto until = std::chrono::steady_clock::now() + generous;
  while (frm.empty() && std::chrono::steady_clock::now() < until) {
    frm = formation_id_in(run.err());
    if (frm.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE_FALSE(frm.empty());
  c.until_b_works(frm);
  const auto pids = formation_processes(frm);
  CHECK(pids.size() == 3);
  run.signal_group(SIGINT); // the terminal's Ctrl-C: the launcher and the entry, in one group
  CHECK(run.wait() == 130);
  for (pid_t p : pids) CHECK(gone_within(p, generous));
  for (const char* m : {"lead", "a", "b"}) {
    INFO(m);
    CHECK(c.events(frm, m, "formation_ended").size() == 1);
    auto end = c.events(frm, m, "task_end");
    REQUIRE(end.size() == 1);
    CHECK(end[0]["state"] == "canceled");
  }
}
