// Delegation with real processes (docs/delegation.md): a formation whose entry member delegates
// to a sub-capsule installed in the project store. The child's answer reaches the entry's task
// and its session lives under the parent's session directory; `kill -9` of the parent member
// ends the child within 1 s (its spawner lifeline); `kill -9` of the launcher ends members and
// children, and `mur stop frm_…` names a child's spawner_ended ending; the child's door refuses
// a formation token with 401; the grant is never in the child's argv or environment, nor in any
// file, stdout or stderr; `mur ps` nests the child.
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "door_http.hpp"
#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include "http/curl_pool.hpp"
#include "messages/credentials/formation_authority.hpp"

#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* parent_yaml =
  "name: dlg-parent\n"
  "version: 1.0.0\n"
  "description: Delegates its task to a sub-capsule\n"
  "inference:\n"
  "  transport: script\n"
  "  turns:\n"
  "    - delegate: {capsule: helper, task: \"help with: {{task}}\"}\n"
  "    - reply: \"parent: {{answer.helper}}\"\n"
  "lifecycle: {task_acceptance: single, after_task: exit}\n"
  "capabilities:\n"
  "  network: {allow: [localhost]}\n"
  "  spawn: {allow: [helper@1.0.0]}\n";

// Quick, except for a task that says "slow": then it thinks for a minute.
const char* helper_yaml =
  "name: helper\n"
  "version: 1.0.0\n"
  "description: A sub-capsule\n"
  "inference:\n"
  "  transport: script\n"
  "  routes:\n"
  "    - match: \"slow\"\n"
  "      turns:\n"
  "        - think_ms: 60000\n"
  "          reply: \"late\"\n"
  "  turns:\n"
  "    - reply: \"helped ({{task}})\"\n";

const char* idle_yaml =
  "name: dlg-idle\n"
  "version: 1.0.0\n"
  "description: A peer that only serves\n"
  "inference:\n"
  "  transport: script\n"
  "  turns:\n"
  "    - reply: idle\n"
  "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n";

const char* roster_yaml =
  "roster_version: 1\n"
  "members:\n"
  "  - {name: parent, capsule: dlg-parent, version: 1.0.0, entry: true}\n"
  "  - {name: idle, capsule: dlg-idle, version: 1.0.0}\n";

// A project whose parent and peer are installed globally, and the helper in the project store only.
struct DelegationProject : IsolatedHome {
  TempDir project, capsules;

  DelegationProject() {
    std::ofstream(project.path + "/roster.yaml") << roster_yaml;
    install("dlg-parent", parent_yaml, true);
    install("dlg-idle", idle_yaml, true);
    install("helper", helper_yaml, false);
  }

  void install(const std::string& name, const char* yaml, bool global) {
    const std::string dir = capsules.path + "/" + name;
    fs::create_directories(dir);
    std::ofstream(dir + "/murmur.yaml") << yaml;
    std::vector<std::string> argv{MUR_BINARY, "install"};
    if (global) argv.push_back("-g");
    argv.push_back(dir);
    Ran r = run_command(argv, env, project.path);
    if (r.exit_code != 0) throw std::runtime_error("mur install " + name + " failed: " + r.err);
  }

  // The running records in $MURMUR_HOME/running (sessions only).
  std::vector<json> records() const {
    std::vector<json> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(home.path + "/running", ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("ses_", 0) != 0 || e.path().extension() != ".json") continue;
      auto j = json::parse(read_bytes(e.path().string()), nullptr, false);
      if (j.is_object()) out.push_back(j);
    }
    return out;
  }

  // The first delegated child's running record, waited for (a bound, not a speed).
  json child_record() const {
    const auto until = std::chrono::steady_clock::now() + generous;
    while (std::chrono::steady_clock::now() < until) {
      for (const auto& r : records())
        if (r.contains("spawned_by")) return r;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return json();
  }
};

std::vector<json> lines_of(const std::string& path) {
  std::istringstream in(read_bytes(path));
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line, nullptr, false));
  return out;
}

long status_with(const std::string& url, const std::string& token) {
  return door_http(url + "/", "POST",
                   R"({"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_0192f0c0a1b2c3d4e5f60718293a4b5c"}})", token)
    .status;
}

// The project's formation running "slow work": the lead's child is up and holds the task.
struct SlowDelegation {
  DelegationProject p;
  LaunchedMur run{{MUR_BINARY, "run", "--roster", p.project.path, "--json", "--task", "slow work"}, p.env, p.project.path};
  Serving s = serve(run);
  json child = p.child_record();
  SlowDelegation() { REQUIRE(child.is_object()); }
};

} // namespace

TEST_CASE("a delegated child answers into its parent's task and leaves its session under the parent's",
          "[process][delegation]") {
  DelegationProject p;
  Ran r = run_command({MUR_BINARY, "run", "--roster", p.project.path, "--task", "the build"}, p.env, p.project.path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("parent: helped (help with: the build)") != std::string::npos);
  for (const std::string& text : {r.out, r.err}) {
    CHECK(text.find("door_key") == std::string::npos);
    CHECK(text.find("mdt1.") == std::string::npos);
  }

  // The parent's trace: delegation_start, then the delegation completed and delivered.
  std::string parent_dir;
  for (const auto& e : fs::directory_iterator(p.project.path + "/.murmur"))
    if (e.path().filename().string().rfind("ses_", 0) == 0) parent_dir = e.path().string();
  REQUIRE(!parent_dir.empty());
  json started, ended;
  for (const auto& e : lines_of(parent_dir + "/trace.jsonl")) {
    if (e.value("event_type", "") == "delegation_start") started = e;
    if (e.value("event_type", "") == "delegation") ended = e;
  }
  REQUIRE(started.is_object());
  REQUIRE(ended.is_object());
  CHECK(ended["status"] == "completed");
  CHECK(ended["delivered"] == true);
  const std::string dlg = started["call_id"];
  const std::string child_ses = started["child_session"];

  // The child's session: <parent session dir>/children/<dlg>/.murmur/<ses>/, its trace naming its parent.
  const std::string child_trace = parent_dir + "/children/" + dlg + "/.murmur/" + child_ses + "/trace.jsonl";
  auto child = lines_of(child_trace);
  REQUIRE(child.size() >= 3);
  const std::string parent_ses = fs::path(parent_dir).filename().string();
  CHECK(child.front()["spawned_by"] == parent_ses);
  CHECK(child.front()["delegation"] == dlg);
  CHECK(child.front().contains("formation_id"));
  CHECK(!child.front().contains("formation_member"));
  CHECK(child.back()["event_type"] == "session_end");
  // No grant and no token in any file left (the running records are gone with their sessions).
  for (const auto& root : {p.home.path, p.project.path})
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file()) continue;
      const std::string bytes = read_bytes(it->path().string());
      INFO(it->path().string());
      CHECK(bytes.find("door_key") == std::string::npos);
      CHECK(bytes.find("mdt1.") == std::string::npos);
    }

  // mur trace show: the delegation beside nothing else, the child's task under it.
  Ran shown = run_command({MUR_BINARY, "trace", "show", child.front()["formation_id"].get<std::string>(), "--json"},
                          p.env, p.project.path);
  REQUIRE(shown.exit_code == 0);
  auto tree = json::parse(shown.out);
  REQUIRE(tree["tasks"].size() == 1);
  const auto& call = tree["tasks"][0]["calls"][0];
  CHECK(call["kind"] == "delegation");
  CHECK(call["callee"] == "capsule:helper");
  CHECK(call["status"] == "completed");
  REQUIRE(call["task"].is_object());
  CHECK(call["task"]["session_id"] == child_ses);
}

TEST_CASE("kill -9 of the parent member: its child is gone within 1 s, and the grant was never in sight",
          "[process][delegation]") {
  SlowDelegation d;
  auto& [p, run, s, child] = d;
  const pid_t child_pid = child["pid"].get<pid_t>();
  const pid_t parent_pid = s.entry["pid"].get<pid_t>();
  CHECK(child["spawned_by"] == s.entry["session_id"]);
  CHECK(child["formation_id"] == s.id());

  // The grant is in neither its argv nor its environment, and its operator token is not on disk
  // at all: only the parent's process holds it (the door's 200 to it is child_port_test's).
  CHECK_FALSE(child.contains("operator_token"));
  const std::string token = "mdt1.";
  const std::string cmdline = read_bytes("/proc/" + std::to_string(child_pid) + "/cmdline");
  const std::string environ = read_bytes("/proc/" + std::to_string(child_pid) + "/environ");
  REQUIRE(!cmdline.empty());
  for (const std::string& text : {cmdline, environ}) {
    CHECK(text.find("door_key") == std::string::npos);
    CHECK(text.find(token) == std::string::npos);
  }
  CHECK(environ.find("MURMUR_SPAWNER_LIFELINE=3") != std::string::npos);
  CHECK(environ.find("MURMUR_FORMATION_CHANNEL") == std::string::npos);
  CHECK(environ.find("MURMUR_FORMATION_LIFELINE") == std::string::npos);

  // Its door: a formation token (of its very formation) is refused 401; its operator token is not.
  mur::FormationAuthority authority(s.id());
  CHECK(status_with(child["url"], authority.mint("parent", "idle").expose()) == 401);
  CHECK(status_with(child["url"], "") == 401);

  // mur ps nests the child under its parent.
  Ran ps = run_command({MUR_BINARY, "ps"}, p.env);
  const auto parent_line = ps.out.find(s.entry["session_id"].get<std::string>());
  const auto child_line = ps.out.find(child["session_id"].get<std::string>());
  REQUIRE(parent_line != std::string::npos);
  REQUIRE(child_line != std::string::npos);
  CHECK(parent_line < child_line);
  CHECK(ps.out.find("capsule:helper") != std::string::npos);

  REQUIRE(::kill(parent_pid, SIGKILL) == 0);
  CHECK(gone_within(child_pid, std::chrono::seconds(1))); // the bound asked of delegation: 1 s
  run.wait();
  CHECK(formation_processes(s.id()).empty());
  // The child recorded its spawner lifeline's end before it wound down.
  std::string trace;
  for (auto it = fs::recursive_directory_iterator(p.project.path + "/.murmur"); it != fs::recursive_directory_iterator(); ++it)
    if (it->path().filename() == "trace.jsonl" && it->path().string().find(child["session_id"].get<std::string>()) != std::string::npos)
      trace = it->path().string();
  REQUIRE(!trace.empty());
  auto lines = lines_of(trace);
  std::vector<std::string> types;
  for (const auto& l : lines) types.push_back(l.value("event_type", ""));
  auto ended = std::find(types.begin(), types.end(), "spawner_ended");
  REQUIRE(ended != types.end());
  CHECK(std::find(ended, types.end(), "task_end") != types.end()); // canceled after, not before
  CHECK(std::find(types.begin(), ended, "task_end") == ended);
  CHECK(lines.back()["event_type"] == "session_end");
  CHECK(lines.back()["exit_status"] == "spawner_ended");
  CHECK(run.err().find("door_key") == std::string::npos);
  CHECK(run.err().find(token) == std::string::npos);
}

TEST_CASE("kill -9 of the launcher: members and their children are gone", "[process][delegation]") {
  SlowDelegation d;
  auto& [p, run, s, child] = d;
  run.signal(SIGKILL);
  CHECK(run.wait() == 128 + SIGKILL);
  for (pid_t pid : s.pids) CHECK(gone_within(pid, generous));
  CHECK(gone_within(child["pid"].get<pid_t>(), generous));
  CHECK(formation_processes(s.id()).empty());
}

TEST_CASE("mur stop frm_… ends a member's child with it and names its ending", "[process][delegation]") {
  SlowDelegation d;
  auto& [p, run, s, child] = d;
  // The child alone is not stopped while its parent runs (E-RUN-053), and nothing on disk reaches its door.
  const std::string child_ses = child["session_id"].get<std::string>();
  Ran alone = run_command({MUR_BINARY, "stop", child_ses}, p.env, p.project.path);
  CHECK(alone.exit_code != 0);
  CHECK(alone.err.find("E-RUN-053") != std::string::npos);
  CHECK(alone.err.find("stop its parent: mur stop " + s.entry["session_id"].get<std::string>()) != std::string::npos);
  CHECK(::kill(child["pid"].get<pid_t>(), 0) == 0);
  Ran token = run_command({MUR_BINARY, "token", "operator", "--session", child_ses}, p.env, p.project.path);
  CHECK(token.exit_code != 0);
  CHECK(token.out.find("mdt1.") == std::string::npos);
  Ran stop = run_command({MUR_BINARY, "stop", s.id()}, p.env, p.project.path);
  INFO(stop.out << stop.err);
  CHECK(stop.exit_code == 0);
  CHECK(stop.out.find("child:    " + child["session_id"].get<std::string>() + "  helper@1.0.0  spawner_ended") !=
        std::string::npos);
  CHECK(gone_within(child["pid"].get<pid_t>(), generous));
  run.wait();
  CHECK(formation_processes(s.id()).empty());
}

TEST_CASE("admission refuses each bad spawn.allow with the real binary: run --roster, doctor and install", "[process][delegation]") {
  TempDir home, project, capsules;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  auto folder = [&](const std::string& name, const std::string& yaml) {
    const std::string dir = capsules.path + "/" + name;
    fs::create_directories(dir);
    std::ofstream(dir + "/murmur.yaml") << yaml;
    return dir;
  };
  auto lead = [](const std::string& allow) {
    return "name: adm-lead\nversion: 1.0.0\ninference: {turns: [{reply: ok}]}\n"
           "capabilities: {network: {allow: [localhost]}, spawn: {allow: [" + allow + "]}}\n"
           "network: {authentication: {scheme: bearer}}\n";
  };
  const std::string worker = "name: adm-worker\nversion: 1.0.0\ninference: {turns: [{reply: w}]}\n"
                             "exports: {peer_tasks: {accept: true}}\nnetwork: {authentication: {scheme: bearer}}\n";
  std::ofstream(project.path + "/roster.yaml")
    << "roster_version: 1\nmembers:\n  - {name: lead, capsule: adm-lead, version: 1.0.0, entry: true}\n"
       "  - {name: worker, capsule: adm-worker, version: 1.0.0}\nreachability:\n  - {from: lead, to: [worker]}\n";
  auto mur = [&](std::vector<std::string> args) {
    args.insert(args.begin(), MUR_BINARY);
    return run_command(args, env, project.path);
  };
  REQUIRE(mur({"install", "-g", folder("adm-worker", worker)}).exit_code == 0);
  REQUIRE(mur({"install", "-g", folder("helper", "name: helper\nversion: 1.0.0\n")}).exit_code == 0);
  REQUIRE(mur({"install", "-g", folder("worker", "name: worker\nversion: 1.0.0\n")}).exit_code == 0);

  auto refused_at_admission = [&](const std::string& allow, const std::string& code, const std::string& fragment) {
    INFO(allow);
    REQUIRE(mur({"install", "-g", "--force", folder("adm-lead", lead(allow))}).exit_code == 0);
    for (const auto& args : {std::vector<std::string>{"doctor", project.path},
                             std::vector<std::string>{"run", "--roster", project.path, "--task", "x"}}) {
      Ran r = mur(args);
      INFO(args[0] << ": " << r.out << r.err);
      CHECK(r.exit_code != 0);
      CHECK((r.out + r.err).find(code) != std::string::npos);
      CHECK((r.out + r.err).find(fragment) != std::string::npos);
      CHECK((r.out + r.err).find("Fix:") != std::string::npos);
    }
  };
  refused_at_admission("helper@2.0.0", "E-ROS-009", "helper@2.0.0");   // not installed at that version
  refused_at_admission("worker@1.0.0", "E-ROS-010", "worker");          // the name of a member it may call

  // Not an exact version, or the capsule itself: the manifest is refused, so it never installs.
  for (const auto& [allow, fragment] : std::vector<std::pair<std::string, std::string>>{
         {"helper@latest", "is a floating tag"}, {"'helper@^1.0'", "capabilities.spawn.allow[0]"},
         {"adm-lead@1.0.0", "names this capsule itself"}}) {
    INFO(allow);
    Ran install = mur({"install", "-g", "--force", folder("adm-lead", lead(allow))});
    CHECK(install.exit_code != 0);
    CHECK(install.err.find("E-MAN-002") != std::string::npos);
    CHECK(install.err.find(fragment) != std::string::npos);
    Ran doctor = mur({"doctor", capsules.path + "/adm-lead"});
    CHECK(doctor.exit_code != 0);
    CHECK(doctor.out.find("E-MAN-002") != std::string::npos);
  }
}
