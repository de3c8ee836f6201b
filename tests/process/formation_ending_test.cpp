// How a real formation ends: serve mode takes two tasks by `mur send frm_…` and is listed by
// `mur ps`, then `mur stop frm_…` ends every member; SIGINT to the launcher ⇒ 130; --deadline
// ⇒ 124; `kill -9` of the launcher ⇒ every member sees its lifeline close and is gone (a
// generous bound, no speed asserted). No member's /proc cmdline or environ holds a token. Every
// member's running record names its launcher; `mur ps` sums each formation up (listed, and
// pruned after a killed launcher); without the launcher's own record, `mur stop frm_…` finds the
// launcher through them.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <csignal>
#include <filesystem>
#include <regex>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

void all_gone(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    INFO("pid " << pid);
    CHECK(gone_within(pid, generous));
  }
}

} // namespace

TEST_CASE("serve mode: two tasks by mur send frm_…, mur ps, then mur stop frm_…", "[process][formation]") {
  ServedFormation served;
  auto& [f, run, s, frm] = served;
  CHECK(s.entry["formation_id"] == frm);
  REQUIRE(s.pids.size() == 3);

  // No token in any member's argv or environment.
  for (pid_t pid : s.pids)
    for (const char* what : {"cmdline", "environ"}) {
      const std::string bytes = read_bytes("/proc/" + std::to_string(pid) + "/" + what);
      CHECK(!bytes.empty());
      for (const auto& t : token_prefixes) CHECK(bytes.find(t) == std::string::npos);
    }

  Ran one = run_command({MUR_BINARY, "send", frm, "add a flag"}, f.env);
  CHECK(one.exit_code == 0);
  CHECK(one.out.find("Lead's summary. Coder: patch written") != std::string::npos);
  Ran two = run_command({MUR_BINARY, "send", frm, "add a TODO list", "--json"}, f.env);
  CHECK(two.exit_code == 0);
  json answer = json::parse(two.out, nullptr, false);
  CHECK(answer["state"] == "completed");

  Ran ps = run_command({MUR_BINARY, "ps", "--json"}, f.env);
  CHECK(ps.exit_code == 0);
  json listed = json::parse(ps.out, nullptr, false);
  REQUIRE(listed["formations"].size() == 1);
  CHECK(listed["formations"][0]["formation_id"] == frm);
  CHECK(listed["formations"][0]["members"].size() == 3);
  CHECK(listed["formations"][0]["launcher_pid"] == run.pid());
  Ran human_ps = run_command({MUR_BINARY, "ps"}, f.env);
  CHECK(human_ps.out.find("formation " + frm) != std::string::npos);

  Ran stop = run_command({MUR_BINARY, "stop", frm}, f.env);
  INFO(stop.out << stop.err);
  CHECK(stop.exit_code == 0);
  CHECK(stop.out.find("stopped:  " + frm) != std::string::npos);
  CHECK(stop.out.find("launcher: pid " + std::to_string(run.pid()) + ", SIGTERM") != std::string::npos);
  CHECK(run.wait() == 128 + SIGTERM);
  all_gone(s.pids);
  CHECK(formation_processes(frm).empty());

  auto traces = f.traces(frm);
  REQUIRE(traces.size() == 3);
  int entry_tasks = 0;
  for (const auto& e : traces["lead"]) entry_tasks += e.value("event_type", "") == "task_start";
  CHECK(entry_tasks == 2);
  for (const auto& [name, trace] : traces) {
    INFO(name);
    bool ended = false;
    for (const auto& e : trace) ended = ended || e.value("event_type", "") == "formation_ended";
    CHECK(ended);
  }
  Ran again = run_command({MUR_BINARY, "stop", frm}, f.env);
  CHECK(again.exit_code == 1);
  CHECK(again.err.find("E-RUN-022") != std::string::npos);

  Ran shown = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, f.env);
  CHECK(shown.exit_code == 0);
  json tr = json::parse(shown.out, nullptr, false);
  CHECK(tr["members"].size() == 3);
  CHECK(tr["calls"].size() == 4); // lead → coder and coder → reviewer, for each task
  Ran human = run_command({MUR_BINARY, "trace", "show", frm}, f.env);
  CHECK(human.out.find("lead → coder  completed") != std::string::npos);
  CHECK(human.out.find("coder → reviewer  completed") != std::string::npos);

  const std::string err = run.err();
  for (const auto& t : token_prefixes) {
    CHECK(err.find(t) == std::string::npos);
    CHECK(f.files_containing(t).empty());
  }
}

TEST_CASE("SIGINT to the launcher ends the formation with 130", "[process][formation]") {
  FormationFixture f;
  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--json"}, f.env);
  Serving s = serve(run);
  run.signal(SIGINT);
  CHECK(run.wait() == 130);
  all_gone(s.pids);
  CHECK(run.err().find("[mur run] SIGINT: the formation was stopped") != std::string::npos);
  CHECK(fs::is_empty(f.home.path + "/running"));
}

TEST_CASE("the deadline flag ends a serving formation with 124", "[process][formation]") {
  FormationFixture f;
  // Long enough for the members to be ready first even on a loaded machine (the test reads their
  // readiness lines); the formation then serves until the deadline ends it.
  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--json", "--deadline", "5s"}, f.env);
  Serving s = serve(run);
  CHECK(run.wait() == 124);
  all_gone(s.pids);
  CHECK(fs::is_empty(f.home.path + "/running"));
}

TEST_CASE("kill -9 of the launcher: every member's lifeline closes and nothing survives", "[process][formation]") {
  ServedFormation served;
  auto& [f, run, s, frm] = served;
  run.signal(SIGKILL);
  CHECK(run.wait() == 128 + SIGKILL);
  all_gone(s.pids);
  CHECK(formation_processes(frm).empty());
  auto traces = f.traces(frm);
  REQUIRE(traces.size() == 3);
  for (const auto& [name, trace] : traces) {
    INFO(name);
    bool ended = false;
    for (const auto& e : trace) ended = ended || e.value("event_type", "") == "formation_ended";
    CHECK(ended);
    CHECK(trace.back().value("event_type", "") == "session_end");
  }
  // The launcher could not clean up: mur ps prunes what it left.
  Ran ps = run_command({MUR_BINARY, "ps", "--json"}, f.env);
  CHECK(json::parse(ps.out)["formations"].empty());
  CHECK(fs::is_empty(f.home.path + "/running"));
}

TEST_CASE("records name the launcher, mur ps sums up, mur stop finds the launcher without its record",
          "[process][formation]") {
  ServedFormation served;
  auto& [f, run, s, frm] = served;
  const std::string running = f.home.path + "/running/";

  // Every member's record names this launcher, as the channel's first line told it.
  int named = 0;
  for (const auto& e : fs::directory_iterator(running)) {
    if (e.path().filename().string().rfind("ses_", 0) != 0) continue;
    json rec = json::parse(read_bytes(e.path().string()), nullptr, false);
    INFO(e.path());
    CHECK(rec["formation_id"] == frm);
    CHECK(rec["formation_launcher"]["pid"] == run.pid());
    CHECK(!rec["formation_launcher"]["process_start"].get<std::string>().empty());
    ++named;
  }
  CHECK(named == 3);

  Ran listed = run_command({MUR_BINARY, "ps"}, f.env);
  CHECK(std::regex_search(listed.out, std::regex("(^|\n)formation " + frm + ": 3 listed \\([a-z, ]+\\)\n")));

  // (A peer killed outright ends the formation with 69: formation_faults_test.cpp. What a killed
  // launcher leaves behind, mur ps prunes: the kill -9 case above.)

  // Without running/<frm>.json, mur stop signals the launcher the members' records name.
  REQUIRE(fs::remove(running + frm + ".json"));
  Ran stop = run_command({MUR_BINARY, "stop", frm}, f.env);
  INFO(stop.out << stop.err);
  CHECK(stop.exit_code == 0);
  CHECK(stop.out.find("launcher: pid " + std::to_string(run.pid()) + ", SIGTERM") != std::string::npos);
  CHECK(run.wait() == 128 + SIGTERM);
  all_gone(s.pids);
}
