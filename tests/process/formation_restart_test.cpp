// Restarts and a serving entry, with real `mur` processes (docs/roster.md §Restarts): a peer with
// `restart:` in the roster that is SIGKILLed while it holds a call is named as lost in the
// caller's answer, is started again as a fresh session under its name, answers the next task, and
// `mur ps` and `mur trace show` say it was restarted; once its budget is spent its next death ends
// the formation with 69. A SIGKILLed entry is named like a peer. A serving entry with
// `task_acceptance: queue` takes a second task while one works. Every launch has a --deadline.
#include <catch2/catch.hpp>

#include "actors/launcher.hpp"
#include "formation_fixture.hpp"
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

// A lead that relays its task to the coder; a coder that takes 3 s per task. `roster_extra` is
// added to the coder's roster entry; `lead_lifecycle` is the lead's lifecycle.
struct RestartFormation {
  FormationFixture f;
  TempDir capsules;
  RestartFormation(const std::string& coder_extra, const std::string& lead_lifecycle = "{}") {
    write("restart-lead", "inference:\n  transport: script\n  turns:\n"
                          "    - call: {member: coder, task: \"work on {{task}}\"}\n"
                          "    - reply: \"Lead got: {{answer.coder}}\"\n"
                          "lifecycle: " + lead_lifecycle + "\n"
                          "capabilities: {network: {allow: [localhost]}}\n"
                          "network: {authentication: {scheme: bearer}}\n");
    write("restart-coder", "inference:\n  transport: script\n  turns:\n"
                           "    - think_ms: 3000\n      reply: \"did {{task}}\"\n"
                           "lifecycle: {task_acceptance: queue, queue_depth: 4, after_task: sleep}\n"
                           "exports: {peer_tasks: {accept: true}}\n"
                           "capabilities: {network: {allow: [localhost]}}\n"
                           "network: {authentication: {scheme: bearer}}\n");
    std::ofstream(f.project.path + "/roster.yaml")
      << "roster_version: 1\nmembers:\n"
         "  - {name: lead,  capsule: restart-lead, version: 1.0.0, entry: true}\n"
         "  - {name: coder, capsule: restart-coder, version: 1.0.0" << coder_extra << "}\n"
         "reachability:\n  - {from: lead, to: [coder]}\n";
  }
  void write(const std::string& name, const std::string& body) {
    const std::string dir = capsules.path + "/" + name;
    fs::create_directories(dir);
    std::ofstream(dir + "/murmur.yaml") << "name: " << name << "\nversion: 1.0.0\n" << body;
    f.install(dir);
  }
};

// Waits (bounded) until `pred()` holds, checking every 50 ms.
template <class Pred>
bool within(std::chrono::milliseconds bound, Pred pred) {
  const auto until = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

// The member `name` of the one formation `mur ps --json` lists (null when none).
json ps_member(const FormationFixture& f, const std::string& name) {
  Ran ps = run_command({MUR_BINARY, "ps", "--json"}, f.env);
  json j = json::parse(ps.out, nullptr, false);
  if (!j.is_object() || j["formations"].empty()) return nullptr;
  for (const auto& m : j["formations"][0]["members"])
    if (m.value("member", "") == name) return m;
  return nullptr;
}

bool coder_took_a_task(const FormationFixture& f, const std::string& frm) {
  auto traces = f.traces(frm); // kept: a range over a member of the temporary map would dangle
  for (const auto& e : traces["coder"])
    if (e.is_object() && e.value("event_type", "") == "a2a_task_received") return true;
  return false;
}

} // namespace

TEST_CASE("a restarted peer: the held call is named lost, its new session answers the next task, ps and trace show "
          "the restart, and its next death ends the formation with 69",
          "[process][formation][restart]") {
  RestartFormation rf(", restart: {max: 1, within_secs: 60}");
  Ran doctor = run_command({MUR_BINARY, "doctor", rf.f.project.path, "--json"}, rf.f.env);
  const json admitted = json::parse(doctor.out, nullptr, false);
  INFO(doctor.out);
  REQUIRE(admitted.is_object());
  CHECK(admitted["roster"]["members"][1]["restart"] == json{{"max", 1}, {"within_secs", 60}});
  CHECK(admitted["roster"]["members"][0]["restart"].is_null());
  CHECK(run_command({MUR_BINARY, "doctor", rf.f.project.path}, rf.f.env).out.find("restarts: 1 within 60 s") !=
        std::string::npos);
  LaunchedMur run({MUR_BINARY, "run", "--roster", rf.f.project.path, "--json", "--deadline", "120s"}, rf.f.env);
  Serving s = serve(run);
  const pid_t first_coder = s.formation["peers"][0]["pid"].get<pid_t>();
  const std::string first_session = s.formation["peers"][0]["session_id"];

  LaunchedMur send({MUR_BINARY, "send", s.id(), "the parser", "--json"}, rf.f.env);
  REQUIRE(within(generous, [&] { return coder_took_a_task(rf.f, s.id()); }));
  ::kill(first_coder, SIGKILL);
  json lost = json::parse(send.read_line(), nullptr, false);
  INFO(lost.dump());
  CHECK(lost.value("answer", "").find("coder stopped running while it held the task") != std::string::npos);
  CHECK(send.wait() == 0);

  // Started again under its name, as a fresh session.
  REQUIRE(within(generous, [&] { return run.err().find("member 'coder' restarted as ses_") != std::string::npos; }));
  INFO(run.err());
  CHECK(run.err().find("[mur run] member 'coder' (pid " + std::to_string(first_coder) +
                       ") was killed by signal 9 (SIGKILL) while the formation ran") != std::string::npos);
  CHECK(run.err().find("restarting it (restart 1 of 1 within 60 s)") != std::string::npos);
  json coder = ps_member(rf.f, "coder");
  REQUIRE(coder.is_object());
  CHECK(coder["session_id"] != first_session);
  CHECK(coder["restarts"] == 1);
  CHECK(run_command({MUR_BINARY, "ps"}, rf.f.env).out.find("restarted 1 time") != std::string::npos);

  // The next task reaches the new session.
  Ran again = run_command({MUR_BINARY, "send", s.id(), "the lexer"}, rf.f.env);
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("Lead got: did work on the lexer") != std::string::npos);
  Ran trace = run_command({MUR_BINARY, "trace", "show", s.id()}, rf.f.env);
  CHECK(trace.out.find("restart 1, after " + first_session) != std::string::npos);

  // Its budget is spent: its next death ends the formation as before.
  ::kill(coder["pid"].get<pid_t>(), SIGKILL);
  CHECK(run.wait() == mur::member_fault_exit_code);
  CHECK(run.err().find("the formation was stopped (exit 69)") != std::string::npos);
  CHECK(formation_processes(s.id()).empty());
}

TEST_CASE("a SIGKILLed entry is named like a peer, and the formation ends with its code",
          "[process][formation][restart]") {
  RestartFormation rf("");
  LaunchedMur run({MUR_BINARY, "run", "--roster", rf.f.project.path, "--json", "--deadline", "120s"}, rf.f.env);
  Serving s = serve(run);
  const pid_t entry = s.entry["pid"].get<pid_t>();
  ::kill(entry, SIGKILL);
  CHECK(run.wait() == 128 + SIGKILL);
  INFO(run.err());
  CHECK(run.err().find("[mur run] the entry member 'lead' (pid " + std::to_string(entry) +
                       ") was killed by signal 9 (SIGKILL) while the formation ran") != std::string::npos);
  CHECK(run.err().find("the formation was stopped (exit 137)") != std::string::npos);
  CHECK(formation_processes(s.id()).empty());
}

TEST_CASE("a serving entry holds tasks as its task_acceptance says: queue takes a second task while one works, "
          "single refuses it as busy",
          "[process][formation][restart]") {
  for (const std::string lifecycle : {"{task_acceptance: queue, queue_depth: 2}", "{}"}) {
    DYNAMIC_SECTION(lifecycle) {
      RestartFormation rf("", lifecycle);
      LaunchedMur run({MUR_BINARY, "run", "--roster", rf.f.project.path, "--json", "--deadline", "120s"}, rf.f.env);
      Serving s = serve(run);
      LaunchedMur first({MUR_BINARY, "send", s.id(), "one"}, rf.f.env);
      REQUIRE(within(generous, [&] { return coder_took_a_task(rf.f, s.id()); }));
      Ran second = run_command({MUR_BINARY, "send", s.id(), "two"}, rf.f.env);
      CHECK(first.wait() == 0);
      INFO(second.err);
      if (lifecycle == "{}") {
        CHECK(second.exit_code != 0);
        CHECK(second.err.find("E-SND-004") != std::string::npos);
      } else {
        CHECK(second.exit_code == 0);
        CHECK(second.out.find("Lead got: did work on two") != std::string::npos);
      }
      run.signal(SIGTERM);
      CHECK(run.wait() == 128 + SIGTERM);
    }
  }
}
