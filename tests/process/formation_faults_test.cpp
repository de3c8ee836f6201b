// Faults named right and seen, with real `mur` processes (docs/spec/choices.md §Faults are
// named): a peer SIGKILLed
// mid-call is named in the caller's answer as refusing the connection, and the launcher ends the
// formation with 69 naming the member and its signal; a peer SIGSTOPped mid-call is named as not
// answering, within the call deadline; a peer that dies while the formation idles ends it with
// 69. Every launch carries --deadline, so a failure ends the formation instead of hanging.
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

// A lead that calls the coder and relays what came back; a coder that takes the task and thinks
// for ten minutes (so only a fault ends the call).
struct FaultFormation {
  FormationFixture f;
  TempDir capsules;
  explicit FaultFormation(int call_deadline_secs) {
    write("fault-lead", "inference:\n  transport: script\n  turns:\n"
                        "    - call: {member: coder, task: \"work on {{task}}\"}\n"
                        "    - reply: \"Lead got: {{answer.coder}}\"\n"
                        "lifecycle: {task_acceptance: single, after_task: exit, delegation_deadline_secs: " +
                          std::to_string(call_deadline_secs) + "}\n"
                        "capabilities: {network: {allow: [localhost]}}\n"
                        "network: {authentication: {scheme: bearer}}\n");
    coder("fault-coder", "think_ms: 600000\n      reply: never", "sleep");
  }
  void write(const std::string& name, const std::string& body) {
    const std::string dir = capsules.path + "/" + name;
    fs::create_directories(dir);
    std::ofstream(dir + "/murmur.yaml") << "name: " << name << "\nversion: 1.0.0\n" << body;
    f.install(dir);
  }
  // Replaces the coder by `once-coder`, whose lifecycle ends it after one task (after_task: exit).
  void use_once_coder(const std::string& turn) { coder("once-coder", turn, "exit"); }
  // Installs capsule `name`, a peer with the one script turn `turn` and lifecycle.after_task
  // `after_task`, and makes it the roster's coder, called by the lead.
  void coder(const std::string& name, const std::string& turn, const std::string& after_task) {
    write(name, "inference:\n  transport: script\n  turns:\n    - " + turn + "\n"
                "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: " + after_task + "}\n"
                "exports: {peer_tasks: {accept: true}}\n"
                "capabilities: {network: {allow: [localhost]}}\n"
                "network: {authentication: {scheme: bearer}}\n");
    std::ofstream(f.project.path + "/roster.yaml")
      << "roster_version: 1\nmembers:\n"
         "  - {name: lead,  capsule: fault-lead, version: 1.0.0, entry: true}\n"
         "  - {name: coder, capsule: " << name << ", version: 1.0.0}\n"
         "reachability:\n  - {from: lead, to: [coder]}\n";
  }
};

// The fault formation serving: its one peer is the coder.
struct FaultServing : Serving {
  pid_t coder = 0;
};

FaultServing serve_faults(LaunchedMur& run) {
  FaultServing s{serve(run)};
  REQUIRE(s.formation["peers"].size() == 1);
  REQUIRE(s.formation["peers"][0]["name"] == "coder");
  s.coder = s.formation["peers"][0]["pid"].get<pid_t>();
  return s;
}

// Waits (bounded) until the coder's trace shows it took a task: the call is then held.
bool coder_holds_a_task(const FormationFixture& f, const std::string& frm) {
  const auto until = std::chrono::steady_clock::now() + generous;
  while (std::chrono::steady_clock::now() < until) {
    auto traces = f.traces(frm);
    for (const auto& e : traces["coder"])
      if (e.is_object() && e.value("event_type", "") == "a2a_task_received") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// A serving fault formation whose coder holds the task of one `mur send` (call deadline
// `call_deadline_secs`, the formation's deadline `deadline`).
struct CallInFlight {
  FaultFormation ff;
  LaunchedMur run;
  FaultServing s;
  LaunchedMur send;
  CallInFlight(int call_deadline_secs, const std::string& deadline)
      : ff(call_deadline_secs),
        run({MUR_BINARY, "run", "--roster", ff.f.project.path, "--json", "--deadline", deadline}, ff.f.env),
        s(serve_faults(run)),
        send({MUR_BINARY, "send", s.id(), "the parser", "--json"}, ff.f.env) {
    REQUIRE(coder_holds_a_task(ff.f, s.id()));
  }
  // Sends `sig` to the coder (and `then_sig`, if any, once the answer came): the answer's text,
  // CHECKed to be that of a completed task.
  std::string answer_after(int sig, int then_sig = 0) {
    ::kill(s.coder, sig);
    json answer = json::parse(send.read_line(), nullptr, false);
    if (then_sig != 0) ::kill(s.coder, then_sig);
    INFO(answer.dump());
    CHECK(answer["state"] == "completed");
    return answer.value("answer", "");
  }
};

// The launcher ended with 69 (mur::member_fault_exit_code), naming the coder (pid `coder`) as
// SIGKILLed while the formation ran.
void stopped_for_killed_coder(LaunchedMur& run, pid_t coder) {
  CHECK(run.wait() == mur::member_fault_exit_code);
  const std::string err = run.err();
  INFO(err);
  CHECK(err.find("[mur run] member 'coder' (pid " + std::to_string(coder) +
                 ") was killed by signal 9 (SIGKILL) while the formation ran") != std::string::npos);
  CHECK(err.find("the formation was stopped (exit 69)") != std::string::npos);
}

} // namespace

TEST_CASE("a peer SIGKILLed mid-call: the answer names the refused connection, the launcher ends the formation with 69",
          "[process][formation][faults]") {
  CallInFlight c(600, "90s");
  auto& [ff, run, s, send] = c;
  const std::string text = c.answer_after(SIGKILL);
  INFO(text);
  CHECK(text.rfind("Lead got: coder gave no answer (unreachable): ", 0) == 0);
  CHECK(text.find("the connection to coder's door was refused: coder stopped running while it held the task") !=
        std::string::npos);
  CHECK(send.wait() == 0);

  stopped_for_killed_coder(run, s.coder);
  INFO(run.err());
  CHECK(gone_within(s.entry["pid"].get<pid_t>(), generous));
  CHECK(formation_processes(s.id()).empty());
}

TEST_CASE("a peer SIGSTOPped mid-call is named as not answering, within the call deadline",
          "[process][formation][faults]") {
  CallInFlight c(25, "120s");
  auto& [ff, run, s, send] = c;
  const std::string text = c.answer_after(SIGSTOP, SIGCONT);
  INFO(text);
  CHECK(text.rfind("Lead got: coder", 0) == 0);
  CHECK(text.find("stopped answering") != std::string::npos);
  CHECK(text.find("busy") == std::string::npos);
  CHECK(send.wait() == 0);

  run.signal(SIGTERM);
  CHECK(run.wait() == 128 + SIGTERM);
  CHECK(gone_within(s.coder, generous));

  // The lead's trace (complete once the formation has ended: traces are written buffered) names
  // the outcome: unreachable (seen not answering) or, if the call deadline came first, timed_out.
  auto traces = ff.f.traces(s.id());
  std::string status;
  for (const auto& e : traces["lead"])
    if (e.is_object() && e.value("event_type", "") == "member_call") status = e.value("status", "");
  CHECK((status == "unreachable" || status == "timed_out"));
}

TEST_CASE("a peer that dies while the formation idles: the launcher names it and ends the formation with 69",
          "[process][formation][faults]") {
  FormationFixture f;
  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--json", "--deadline", "90s"}, f.env);
  json formation = json::parse(run.read_line(), nullptr, false);
  json entry = json::parse(run.read_line(), nullptr, false);
  REQUIRE(formation.is_object());
  REQUIRE(entry.is_object());
  const std::string frm = formation["formation_id"];
  REQUIRE(formation["peers"][0]["name"] == "coder");
  const pid_t coder = formation["peers"][0]["pid"].get<pid_t>();
  ::kill(coder, SIGKILL);

  stopped_for_killed_coder(run, coder);
  INFO(run.err());
  for (const auto& p : formation["peers"]) CHECK(gone_within(p["pid"].get<pid_t>(), generous));
  CHECK(gone_within(entry["pid"].get<pid_t>(), generous));
  CHECK(formation_processes(frm).empty());
  Ran ps = run_command({MUR_BINARY, "ps", "--json"}, f.env);
  CHECK(json::parse(ps.out)["formations"].empty());
}

TEST_CASE("mur doctor warns W-ROS-003 with a Fix line when a callee's after_task is exit", "[process][doctor][faults]") {
  FaultFormation ff(600);
  ff.use_once_coder("reply: done");
  Ran r = run_command({MUR_BINARY, "doctor", ff.f.project.path}, ff.f.env);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("W-ROS-003: member 'coder' (once-coder@1.0.0) may be called by lead but its lifecycle.after_task is exit") !=
        std::string::npos);
  CHECK(r.out.find("Fix: in once-coder's murmur.yaml set lifecycle.after_task: sleep") != std::string::npos);
}

TEST_CASE("a peer that ends as its lifecycle says is no fault, a later call to it names a member that has ended",
          "[process][formation][faults]") {
  FaultFormation ff(600);
  ff.use_once_coder("think_ms: 500\n      reply: \"did {{task}}\""); // it thinks a little, so the lead follows its task first
  LaunchedMur run({MUR_BINARY, "run", "--roster", ff.f.project.path, "--json", "--deadline", "90s"}, ff.f.env);
  FaultServing s = serve_faults(run);

  Ran first = run_command({MUR_BINARY, "send", s.id(), "one", "--json"}, ff.f.env);
  CHECK(first.exit_code == 0);
  // Not checked here: that the first answer arrives. A callee that exits right after its task
  // sometimes takes its last stream event with it (the door server closes its streams on exit
  // before the event is written): a known gap of the door server.
  REQUIRE(gone_within(s.coder, generous));
  // The launcher says so on stderr (bounded wait for its line), and does not stop the formation.
  const std::string ended_note = "member 'coder' (pid " + std::to_string(s.coder) + ") ended as its lifecycle says (status 0)";
  const auto until = std::chrono::steady_clock::now() + generous;
  while (run.err().find(ended_note) == std::string::npos && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(run.err().find(ended_note) != std::string::npos);

  Ran second = run_command({MUR_BINARY, "send", s.id(), "two", "--json"}, ff.f.env);
  const std::string text = json::parse(second.out, nullptr, false).value("answer", "");
  INFO(second.out << second.err);
  CHECK(text.find("coder has ended as its lifecycle says (after_task: exit)") != std::string::npos);
  CHECK(text.find("nothing was sent") != std::string::npos);

  run.signal(SIGTERM);
  CHECK(run.wait() == 128 + SIGTERM); // no fault: the formation served on until it was stopped
  CHECK(run.err().find("while the formation ran") == std::string::npos);
}
