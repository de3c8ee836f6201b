// The real child port (member/child_spawner.hpp) with real processes, before any delegation
// reaches it through a model: StartChild starts a one-task `mur run --capsule` child in
// `<session dir>/children/<dlg>/` (0700) whose door requires a token and opens to the operator
// token the port answered in the Bearer — never to a formation token (401); the grant is in
// neither its argv nor its environment; EndChild closes its spawner lifeline, and the child
// records `spawner_ended {spawned_by}` before its `session_end` and is gone; a capsule outside
// spawn.allow or not installed is answered with a sentence and no process; the grant line reaches
// the child's stdin and the Bearer's token opens under its key; a child deaf to its lifeline is
// killed once the grace ran out; one that exits first or stays silent fails its start.
#include <catch2/catch.hpp>

#include "door_http.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"
#include "member/child_process.hpp"
#include "member/child_spawner.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/spawn_grant.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/message_types.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/register_messages.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <sys/stat.h>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string helper_manifest =
  "name: dlg-helper\n"
  "version: 1.0.0\n"
  "description: Answers a delegated task\n"
  "inference:\n"
  "  transport: script\n"
  "  turns:\n"
  "    - reply: \"helper did: {{task}}\"\n";


std::vector<json> trace_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(json::parse(line, nullptr, false));
  return lines;
}

// A parent session's world: a home, a project whose store holds dlg-helper, a session directory.
struct PortWorld {
  TempDir home, project, capsule;
  std::string session_id = mur::ids::mint(mur::ids::session);
  std::string formation_id = mur::ids::mint(mur::ids::formation);
  std::string session_dir;
  std::shared_ptr<mur::ChildProcesses> processes = std::make_shared<mur::ChildProcesses>();

  PortWorld() {
    std::ofstream(capsule.path + "/murmur.yaml") << helper_manifest;
    Ran r = run_command({MUR_BINARY, "install", capsule.path}, {{"MURMUR_HOME", home.path}}, project.path);
    if (r.exit_code != 0) throw std::runtime_error("mur install failed: " + r.err);
    session_dir = project.path + "/.murmur/" + session_id;
    fs::create_directories(session_dir);
  }

  mur::ChildSpawnerSetup setup() const {
    mur::ChildSpawnerSetup s;
    s.program = MUR_BINARY;
    s.store_root = project.path;
    s.session_dir = session_dir;
    s.session_id = session_id;
    s.formation_id = formation_id;
    s.env = {"MURMUR_HOME=" + home.path, std::string("PATH=") + std::getenv("PATH"),
             std::string("HOME=") + home.path, "MURMUR_FORMATION_LIFELINE=9", "MURMUR_SPAWNER=x"};
    s.allowed = {mur::SpawnTarget{"dlg-helper", "1.0.0"}, mur::SpawnTarget{"dlg-absent", "2.0.0"}};
    s.processes = processes;
    return s;
  }
};

struct Started {
  mur::ChildStarted child;
  mur::Bearer bearer;
};

Started start(caf::scoped_actor& self, const mur::child_port& port, const mur::StartChild& rq) {
  Started out;
  self->request(port, std::chrono::seconds(60), rq)
    .receive([&](const mur::ChildStarted& c, const mur::Bearer& b) { out.child = c, out.bearer = b; },
             [&](const caf::error& e) { out.child.failure = "port error: " + self->system().render(e); });
  return out;
}

// The trace's lines once it has at least `n` (the recorder flushes within 200 ms), bounded.
std::vector<json> trace_with(const std::string& path, std::size_t n) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto lines = trace_lines(path);
  while (lines.size() < n && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    lines = trace_lines(path);
  }
  return lines;
}

// The port ends with the test, whatever fails (an actor system waits for its actors).
struct PortGuard {
  caf::scoped_actor& self;
  mur::child_port port;
  std::shared_ptr<mur::ChildProcesses> processes;
  ~PortGuard() {
    // Down before the next case starts a child on the same processes: the port's end closes every
    // child's lifeline (and abandons one not yet started), which must not reach the next one.
    self->monitor(port);
    self->send_exit(port, caf::exit_reason::user_shutdown);
    self->receive([](const caf::down_msg&) {}, caf::after(std::chrono::seconds(30)) >> [] {});
    processes->end_all(std::chrono::seconds(25));
  }
};

std::string dlg() { return "dlg_" + mur::ids::uuid7_hex(); }

caf::actor_system_config& config();

// Starts dlg-helper@1.0.0 for delegation `id` (`task_id` its parent's task) and requires it started.
Started started_helper(caf::scoped_actor& self, const mur::child_port& port, const std::string& id,
                       const std::string& task_id) {
  Started s = start(self, port, mur::StartChild{id, "dlg-helper", "1.0.0", task_id});
  INFO(s.child.failure);
  REQUIRE(s.child.failure.empty());
  return s;
}

// A real child port over PortWorld's setup, ended with the test.
struct PortScene {
  PortWorld w;
  caf::actor_system sys{config()};
  caf::scoped_actor self{sys};
  mur::child_port port = mur::spawn_child_spawner(sys, w.setup());
  PortGuard guard{self, port, w.processes};
  struct Parts {
    PortWorld& w;
    caf::actor_system& sys;
    caf::scoped_actor& self;
    mur::child_port& port;
  };
  Parts parts() { return {w, sys, self, port}; }
  // dlg-helper started for a fresh delegation (its parent's task a fresh id too): the delegation's
  // id and what the port answered.
  std::pair<std::string, Started> fresh_helper() {
    std::string id = dlg();
    Started s = started_helper(self, port, id, "tsk_" + mur::ids::uuid7_hex());
    return {id, s};
  }
  // EndChild for delegation `id`: CHECKs that its child (`s`) is gone within 30 s.
  void end_child(const std::string& id, const Started& s) {
    self->send(port, mur::EndChild{id});
    CHECK(gone_within(static_cast<pid_t>(s.child.pid), std::chrono::seconds(30)));
  }
};

caf::actor_system_config& config() {
  static caf::actor_system_config cfg = [] {
    caf::actor_system_config c;
    mur::register_message_types(c);
    return c;
  }();
  return cfg;
}

} // namespace

TEST_CASE("the child port starts a delegated child whose door opens only to its operator token",
          "[process][delegation]") {
  PortScene scene;
  auto& w = scene.w;
  const auto [id, s] = scene.fresh_helper();
  CHECK(mur::ids::is_valid(s.child.session_id, mur::ids::session));
  CHECK(s.child.pid > 0);
  REQUIRE(s.bearer.door_token);
  CHECK(!s.bearer.token);
  const std::string token = s.bearer.door_token->expose();

  // Its directory: private, under the parent's session directory; its session inside it.
  const std::string dir = w.session_dir + "/children/" + id;
  struct stat st {};
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  const std::string trace = dir + "/.murmur/" + s.child.session_id + "/trace.jsonl";
  REQUIRE(fs::exists(trace));
  auto start_line = trace_with(trace, 1).at(0);
  CHECK(start_line["event_type"] == "session_start");
  CHECK(start_line["spawned_by"] == w.session_id);
  CHECK(start_line["delegation"] == id);
  CHECK(start_line["formation_id"] == w.formation_id);
  CHECK(!start_line.contains("formation_member"));

  // Neither the grant's key nor the token is in its argv or environment; only the id and the lifeline are inherited.
  const std::string pid = std::to_string(s.child.pid);
  const std::string cmdline = read_bytes("/proc/" + pid + "/cmdline");
  const std::string environ = read_bytes("/proc/" + pid + "/environ");
  REQUIRE(!cmdline.empty());
  CHECK(cmdline.find("--spawn-grant-stdin") != std::string::npos);
  for (const std::string& text : {cmdline, environ}) {
    CHECK(text.find("door_key") == std::string::npos);
    CHECK(text.find(token) == std::string::npos);
    CHECK(text.find("mdt1.") == std::string::npos);
  }
  CHECK(environ.find("MURMUR_SPAWNER_LIFELINE=3") != std::string::npos);
  CHECK(environ.find("MURMUR_FORMATION_ID=" + w.formation_id) != std::string::npos);
  CHECK(environ.find("MURMUR_FORMATION_LIFELINE") == std::string::npos);
  CHECK(environ.find("MURMUR_SPAWNER=") == std::string::npos);

  // Its door: no token, a formation token of its very formation, then the operator token.
  mur::DoorRequest get;
  get.method = mur::DoorMethod::get_task;
  get.task_id = "tsk_" + mur::ids::uuid7_hex();
  CHECK(door_rpc(s.child.url, get, "").status == 401);
  mur::FormationAuthority authority(w.formation_id);
  const std::string formation_token = authority.mint("lead", "dlg-helper").expose();
  CHECK(door_rpc(s.child.url, get, formation_token).status == 401);
  mur::DoorRequest send;
  send.method = mur::DoorMethod::send_message;
  send.text = "sort the list";
  DoorHttpReply done = door_rpc(s.child.url, send, token);
  CHECK(done.status == 200);
  CHECK(done.body.dump().find("helper did: sort the list") != std::string::npos);

  // It keeps its door after its one task (its parent reads the answer there), until EndChild.
  mur::DoorRequest again;
  again.method = mur::DoorMethod::get_task;
  again.task_id = done.body["result"]["task"].value("id", std::string());
  if (again.task_id.empty()) again.task_id = done.body["result"].value("id", std::string());
  CHECK(door_rpc(s.child.url, again, token).body.dump().find("helper did: sort the list") != std::string::npos);
  scene.end_child(id, s);
  for (const auto& line : trace_lines(trace)) CHECK(line.dump().find("mdt1.") == std::string::npos);
}

TEST_CASE("EndChild closes the spawner lifeline: the child records spawner_ended first and ends",
          "[process][delegation]") {
  PortScene scene;
  const auto [id, s] = scene.fresh_helper();
  scene.end_child(id, s);
  const PortWorld& w = scene.w;
  auto lines = trace_with(w.session_dir + "/children/" + id + "/.murmur/" + s.child.session_id + "/trace.jsonl", 3);
  REQUIRE(lines.size() >= 3);
  CHECK(lines[lines.size() - 2]["event_type"] == "spawner_ended");
  CHECK(lines[lines.size() - 2]["spawned_by"] == w.session_id);
  CHECK(lines.back()["event_type"] == "session_end");
  CHECK(lines.back()["exit_status"] == "ok"); // no task was running
}

TEST_CASE("a child that cannot start is answered with a sentence and no process", "[process][delegation]") {
  PortScene scene;
  auto [w, sys, self, port] = scene.parts();
  Started absent = start(self, port, mur::StartChild{dlg(), "dlg-absent", "2.0.0", ""});
  CHECK(absent.child.failure.find("dlg-absent@2.0.0 cannot be started") != std::string::npos);
  CHECK(absent.child.pid == 0);
  CHECK(!absent.bearer.door_token);
  Started outside = start(self, port, mur::StartChild{dlg(), "dlg-helper", "9.9.9", ""});
  CHECK(outside.child.failure.find("not in this capsule's spawn.allow") != std::string::npos);
  Started bad_id = start(self, port, mur::StartChild{"../escape", "dlg-helper", "1.0.0", ""});
  CHECK(bad_id.child.failure.find("delegation id") != std::string::npos);
  CHECK(!fs::exists(w.session_dir + "/escape"));
}

namespace {

// A stand-in for `mur` (the port starts whatever program it is given): a shell script in `dir`.
std::string script(const std::string& dir, const std::string& body) {
  const std::string path = dir + "/fake-mur.sh";
  std::ofstream(path) << "#!/bin/sh\n" << body;
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

// The pid a stand-in wrote into its working directory (the child's directory), waited for.
pid_t pid_in(const std::string& dir) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    const std::string text = read_bytes(dir + "/pid.txt");
    if (!text.empty() && text.back() == '\n') return static_cast<pid_t>(std::stol(text));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

// The start of a delegated child whose `mur` is a stand-in running `body` (in `bin`), asked of a
// port of its own, which is ended before this returns.
Started start_stand_in(PortWorld& w, caf::actor_system& sys, caf::scoped_actor& self, const std::string& bin,
                       const std::string& body) {
  auto setup = w.setup();
  setup.program = script(bin, body);
  auto port = mur::spawn_child_spawner(sys, setup);
  PortGuard guard{self, port, w.processes};
  return start(self, port, mur::StartChild{dlg(), "dlg-helper", "1.0.0", ""});
}

} // namespace

TEST_CASE("the grant reaches the child's stdin, and a child deaf to its lifeline is killed after the grace",
          "[process][delegation]") {
  PortWorld w;
  TempDir bin;
  auto setup = w.setup();
  setup.program = script(bin.path, "cat > grant.txt\necho $$ > pid.txt\n"
                                   "echo '{\"session_id\":\"ses_0192f0c0a1b2c3d4e5f60718293a4b5c\",\"url\":\"127.0.0.1:9\","
                                   "\"pid\":1,\"formation_id\":\"" + w.formation_id + "\"}'\n"
                                   "trap '' TERM\nexec sleep 60\n");
  setup.end_grace = std::chrono::milliseconds(1000);
  caf::actor_system sys{config()};
  caf::scoped_actor self{sys};
  auto port = mur::spawn_child_spawner(sys, setup);
  PortGuard guard{self, port, w.processes};
  const std::string id = dlg();
  Started s = started_helper(self, port, id, "");
  CHECK(s.child.url == "http://127.0.0.1:9");
  const std::string dir = w.session_dir + "/children/" + id;
  const pid_t pid = pid_in(dir);
  REQUIRE(pid > 0);

  // One line: the key, the parent's session, the delegation; the Bearer's token opens with that key.
  const std::string grant = read_bytes(dir + "/grant.txt");
  REQUIRE(!grant.empty());
  CHECK(grant.back() == '\n');
  CHECK(grant.find('\n') == grant.size() - 1);
  mur::SpawnGrant g = mur::parse_spawn_grant(grant);
  CHECK(g.spawned_by == w.session_id);
  CHECK(g.delegation == id);
  REQUIRE(s.bearer.door_token);
  auto opened = mur::DoorTokenIssuer(g.key.bytes()).open(s.bearer.door_token->expose());
  REQUIRE(opened);
  CHECK(opened->credential == "operator");

  // It ignores its lifeline's end: the grace runs out and its group is killed (and reaped).
  self->send(port, mur::EndChild{id});
  CHECK(gone_within(pid, std::chrono::seconds(30)));
}

TEST_CASE("a child that exits before reporting, refuses to start or says nothing fails its start with a sentence",
          "[process][delegation]") {
  PortWorld w;
  TempDir bin;
  caf::actor_system sys{config()};
  caf::scoped_actor self{sys};
  {
    Started s = start_stand_in(w, sys, self, bin.path,
                               "cat > /dev/null\necho 'door at http://127.0.0.1:5/ for you' >&2\n"
                               "echo 'boom: it failed' >&2\nexit 3\n");
    CHECK(s.child.failure.find("dlg-helper exited (code 3) before reporting its session") != std::string::npos);
    CHECK(s.child.failure.find("boom: it failed") != std::string::npos);
    CHECK(s.child.failure.find("http://") == std::string::npos); // never a door's url
    CHECK(!s.bearer.door_token);
  }
  {
    auto setup = w.setup();
    setup.program = script(bin.path, "echo $$ > pid.txt\nexec sleep 60\n");
    // Long enough for the stand-in to write its pid before it is killed, even on a loaded machine
    // (at 1 s a run under load once saw it killed first, and pid.txt never came).
    setup.ready_deadline = std::chrono::milliseconds(3000);
    auto port = mur::spawn_child_spawner(sys, setup);
    PortGuard guard{self, port, w.processes};
    const std::string id = dlg();
    Started s = start(self, port, mur::StartChild{id, "dlg-helper", "1.0.0", ""});
    CHECK(s.child.failure.find("dlg-helper did not report its session within 3s") != std::string::npos);
    const pid_t pid = pid_in(w.session_dir + "/children/" + id);
    REQUIRE(pid > 0);
    CHECK(gone_within(pid, std::chrono::seconds(30))); // its group was killed
  }
  { // `mur run --json` refused to start (its error line): the code, the reason and the Fix reach the parent
    Started s = start_stand_in(w, sys, self, bin.path,
                               "cat > /dev/null\n"
                               "echo '{\"error\":{\"code\":\"E-MOD-003\",\"message\":\"api_key names UX_KEY, which is not set\","
                               "\"fix\":\"set UX_KEY in the environment of mur run\"}}'\nexit 1\n");
    CHECK(s.child.failure.find("dlg-helper refused to start: E-MOD-003: api_key names UX_KEY, which is not set. "
                               "Fix: set UX_KEY in the environment of mur run") != std::string::npos);
    CHECK(!s.bearer.door_token);
  }
  { // ...and a message that holds a url is left out, the code kept
    Started s = start_stand_in(w, sys, self, bin.path,
                               "cat > /dev/null\n"
                               "echo '{\"error\":{\"code\":\"E-MOD-010\",\"message\":\"http://10.0.0.1:8080 refused\"}}'\nexit 1\n");
    CHECK(s.child.failure.find("dlg-helper refused to start: E-MOD-010") != std::string::npos);
    CHECK(s.child.failure.find("://") == std::string::npos);
  }
}
