// sealed_members_test.cpp — a hostile agent program and a hostile stdio tool server
// (tests/process/hostile_member.py) try to leave their seal in a real formation: read the
// launcher's and the member's environment and memory map, ptrace them, see other processes, reach
// the store and other formations, write under MURMUR_HOME, mount, make a user namespace, use the
// keyrings and bpf, keep capabilities, leave a `setsid` process behind, and put escape sequences
// on the operator's terminal. Each attempt must be refused. What this machine gives is read from
// `mur doctor --json` first: a layer doctor does not claim is not asserted (the test says so),
// one it claims must hold. The attempts name x86_64 system call numbers.
#include "capsule_folder.hpp"
#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"
#include "tool_capsule.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <string_view>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <fstream>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string hostile = std::string(MUR_SOURCE_DIR) + "/tests/process/hostile_member.py";

// The processes whose command line holds `marker`.
std::vector<pid_t> processes_named(const std::string& marker) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_bytes(it->path().string() + "/cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(marker) != std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

// Whether no process holds `marker` within `bound` (a process ending is no event to wait on).
bool none_named_within(const std::string& marker, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  while (!processes_named(marker).empty()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

struct HostileFormation {
  FormationFixture f;
  TempDir capsule;
  json isolation;
  HostileFormation() {
    fs::copy_file(hostile, capsule.path + "/hostile_member.py");
    std::ofstream(capsule.path + "/murmur.yaml")
      << "name: hostile\nversion: 1.0.0\n"
         "inference:\n  transport: process\n  command: [python3, hostile_member.py, program]\n"
         "tools:\n  - name: probe\n    command: [python3, hostile_member.py, server]\n"
         "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n";
    f.install(capsule.path);
    std::ofstream(f.project.path + "/roster.yaml")
      << "roster_version: 1\nmembers:\n  - {name: lead, capsule: hostile, version: 1.0.0, entry: true}\n";
    Ran doctor = run_command({MUR_BINARY, "doctor", f.project.path, "--json"}, f.env);
    INFO(doctor.out << doctor.err);
    isolation = json::parse(doctor.out)["isolation"];
  }
  bool claims(const std::string& layer) const { return isolation[layer]["present"].get<bool>(); }
};

} // namespace

TEST_CASE("a hostile program and tool server are refused each way out of their seal", "[process][isolation]") {
  HostileFormation h;
  h.f.env["MUR_TEST_SEALED_API_KEY"] = "sk-sealed-5521";
  LaunchedMur run({MUR_BINARY, "run", "--roster", h.f.project.path, "--json"}, h.f.env);
  Serving s = serve(run);
  const std::string marker = "hostile" + std::to_string(::getpid());
  // The launcher's and the member's environment blocks hold no key, only the runtime's MURMUR_*.
  for (const pid_t pid : {run.pid(), pid_t(s.pids.back())}) {
    const std::string environ = read_bytes("/proc/" + std::to_string(pid) + "/environ");
    CHECK(environ.find("sk-sealed-5521") == std::string::npos);
    CHECK(environ.find("MUR_TEST_SEALED_API_KEY") == std::string::npos);
    CHECK(environ.find("MURMUR_HOME=" + h.f.home.path) != std::string::npos);
  }
  const std::string launcher = std::to_string(run.pid()), member = std::to_string(s.pids.back());
  if (h.claims("member_runtime")) {
    // The member's own process is sealed as the kernel reports it, and its starter is its child.
    const std::string status = read_bytes("/proc/" + member + "/status");
    CHECK(status.find("NoNewPrivs:\t1\n") != std::string::npos);
    CHECK(status.find("Seccomp:\t2\n") != std::string::npos);
    CHECK(status.find("CapEff:\t0000000000000000\n") != std::string::npos);
    bool has_starter = false;
    std::istringstream children(read_bytes("/proc/" + member + "/task/" + member + "/children"));
    for (std::string child; children >> child;)
      has_starter = has_starter || read_bytes("/proc/" + child + "/cmdline") == std::string("mur-confine\0--starter\0", 22);
    CHECK(has_starter);
  } else {
    WARN("doctor claims no sealed member runtime here: its status is not asserted");
  }
  const std::string entry_url = s.entry["url"].get<std::string>();
  const std::string door = entry_url.substr(entry_url.rfind(':') + 1);
  Ran sent = run_command({MUR_BINARY, "send", s.id(),
                          "pids: " + launcher + " " + member + " home: " + h.f.home.path + " marker: " + marker +
                            " door: " + door},
                         h.f.env);
  INFO(sent.out << sent.err << "\nlauncher: " << run.err() << "\nisolation: " << h.isolation.dump(1));
  REQUIRE(sent.exit_code == 0);
  const std::string& report = sent.out;
  // Both reported: the program's attempts, then its tool server's.
  CHECK(report.find("left behind: " + marker + "-program, running") != std::string::npos);
  CHECK(report.find("left behind: " + marker + "-server, running") != std::string::npos);

  if (h.claims("pid_namespace")) {
    CHECK(report.find("REACHED") == std::string::npos);
    CHECK(report.find("processes seen: 2\n") != std::string::npos); // the program and its init
    // The program's `setsid` sleeper ended with the program's turn; the server's lives while the
    // server does, and ends with the formation.
    CHECK(none_named_within(marker + "-program", generous));
  } else {
    WARN("doctor claims no pid namespace here: other processes' /proc entries are not asserted hidden");
  }
  for (const std::string who : {"program", "server"}) {
    if (h.claims("landlock")) {
      CHECK(report.find("list the store: refused") != std::string::npos);
      CHECK(report.find("list the formations: refused") != std::string::npos);
      CHECK(report.find("write in MURMUR_HOME: refused") != std::string::npos);
      CHECK_FALSE(fs::exists(h.f.home.path + "/evil-" + who));
    }
    if (h.claims("seccomp"))
      for (const char* call : {"mount", "new user namespace", "keyctl", "bpf"})
        CHECK(report.find(std::string(call) + ": refused (EPERM)") != std::string::npos);
  }
  if (h.claims("capabilities")) CHECK(report.find("capabilities: 0000000000000000") != std::string::npos);
  if (h.claims("network")) {
    // Its own network: nothing but the proxy, which grants nothing (no capabilities.network.allow).
    CHECK(report.find("connect to the door directly: refused") != std::string::npos);
    CHECK(report.find("connect to 1.1.1.1 directly: refused") != std::string::npos);
    CHECK(report.find("the door through the proxy: refused (403 E-NET-001)") != std::string::npos);
    CHECK(report.find("example.org through the proxy: refused (403 E-NET-001)") != std::string::npos);
    CHECK(report.find("a member's virtual address: refused (403 E-NET-001)") != std::string::npos);

  } else {
    WARN("doctor claims no network namespace here: programs' connections are not asserted confined");
  }
  CHECK(report.find("capabilities: 000001ff") == std::string::npos);
  // A private HOME in mur's folder of the project (the entry's directory), where ~/.cache works.
  const std::string home = h.f.project.path + "/.murmur/home";
  CHECK(report.find("home: " + fs::canonical(home).string()) != std::string::npos);
  CHECK(read_bytes(home + "/.cache/hostile/program") == "program");
  CHECK(read_bytes(home + "/.cache/hostile/server") == "server");

  // The answer's escape sequences reach no terminal: `mur trace show` at a terminal escapes them.
  Ran shown = run_command({"/usr/bin/env", "python3", std::string(MUR_SOURCE_DIR) + "/tests/process/at_terminal.py", "-",
                           MUR_BINARY, "trace", "show", s.id()},
                          h.f.env, h.f.project.path);
  INFO(shown.out);
  CHECK(shown.out.find("owned") != std::string::npos);
  CHECK(shown.out.find("\x1b]0;") == std::string::npos);
  CHECK(shown.out.find("\x1b[2J") == std::string::npos);

  run.signal(SIGTERM);
  CHECK(run.wait() == 128 + SIGTERM);
  if (h.claims("pid_namespace")) CHECK(none_named_within(marker, generous));
  if (h.claims("network")) {
    // Each refusal is in the member's trace (complete once it has ended), naming whose proxy refused it.
    std::map<std::string, int> refused;
    for (const auto& e : fs::recursive_directory_iterator(h.f.home.path)) {
      if (e.path().filename() != "trace.jsonl") continue;
      std::istringstream lines(read_bytes(e.path().string()));
      for (std::string line; std::getline(lines, line);) {
        const json event = json::parse(line, nullptr, false);
        if (event.is_object() && event.value("event_type", "") == "egress_refused") ++refused[event.value("program", "")];
      }
    }
    CHECK(refused["the agent program"] == 3);
    CHECK(refused["the tool server 'probe'"] == 3);
  }
}

TEST_CASE("a launch after kill -9 leaves no program's setsid process behind", "[process][isolation]") {
  HostileFormation h;
  if (!h.claims("pid_namespace")) {
    WARN("doctor claims no pid namespace here: nothing to assert");
    return;
  }
  LaunchedMur run({MUR_BINARY, "run", "--roster", h.f.project.path, "--json"}, h.f.env);
  Serving s = serve(run);
  const std::string marker = "orphan" + std::to_string(::getpid());
  Ran sent = run_command({MUR_BINARY, "send", s.id(), "pids: home: " + h.f.home.path + " marker: " + marker}, h.f.env);
  INFO(sent.out << sent.err);
  REQUIRE(sent.exit_code == 0);
  CHECK(sent.out.find("left behind: " + marker + "-server, running") != std::string::npos);
  REQUIRE(!processes_named(marker + "-server").empty()); // the tool server's sleeper, while it serves
  run.signal(SIGKILL);
  run.wait();
  CHECK(none_named_within(marker, generous));
}

TEST_CASE("a program past its member's pids or memory_mib is refused or ended, named, and nothing else is",
          "[process][isolation][limits]") {
  HostileFormation h; // for doctor's view of this machine
  if (!h.claims("resource_limits")) {
    WARN("doctor claims no resource limits here: " << h.isolation["resource_limits"]["text"].get<std::string>());
    return;
  }
  CapsuleFolder c("name: greedy\nversion: 1.0.0\ninference:\n  transport: process\n"
                  "  command: [python3, hostile_member.py, program]\ncapabilities:\n  limits: {pids: 64, memory_mib: 192}\n");
  fs::copy_file(hostile, c.folder.path + "/hostile_member.py");
  Ran forks = run_command(c.run_argv({"--task", "fork-bomb"}), c.env);
  INFO(forks.out << forks.err);
  CHECK(forks.exit_code == 1);
  CHECK(forks.out.find("E-LIM-002: the agent program exited with status 3 after ") != std::string::npos);
  CHECK(forks.out.find("its member reached capabilities.limits.pids (64)") != std::string::npos);
  CHECK(forks.out.find("REACHED") == std::string::npos);

  Ran memory = run_command(c.run_argv({"--task", "eat-memory"}), c.env);
  INFO(memory.out << memory.err);
  CHECK(memory.exit_code == 1);
  CHECK(memory.out.find("E-LIM-001: the kernel ended the agent program: its member reached "
                        "capabilities.limits.memory_mib (192 MiB") != std::string::npos);
  CHECK(memory.out.find("REACHED") == std::string::npos);

  // A tool server past memory_mib: the call fails, and the server's end names the limit.
  CapsuleFolder server("name: greedy-tools\nversion: 1.0.0\ntools:\n  - name: probe\n"
                       "    command: [python3, hostile_member.py, server]\ninference:\n  turns:\n"
                       "    - use: {tool: probe__attempts, arguments: {task: eat-memory}}\n    - reply: '{{tool_results}}'\n"
                       "capabilities:\n  limits: {memory_mib: 192}\n");
  fs::copy_file(hostile, server.folder.path + "/hostile_member.py");
  Ran tool = run_command(server.run_argv({"--task", "go"}), server.env);
  INFO(tool.out << tool.err);
  CHECK(tool.out.find("REACHED") == std::string::npos);
  CHECK((tool.out + tool.err).find("E-LIM-001: the kernel ended the tool server 'probe': its member reached "
                                   "capabilities.limits.memory_mib (192 MiB") != std::string::npos);
}

TEST_CASE("as an ordinary user a program is sealed in a user namespace, and limits without groups are said and bound per process",
          "[process][isolation][limits]") {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0) {
    WARN("needs root (to become an ordinary user) and setpriv: not run here");
    return;
  }
  // Everything the ordinary user (nobody) needs is its own: the capsule, its work and home.
  TempDir t;
  const std::string folder = t.path + "/capsule", work = t.path + "/work", home = t.path + "/home";
  for (const auto& d : {folder, work, home}) fs::create_directories(d);
  fs::copy_file(hostile, folder + "/hostile_member.py");
  std::ofstream(folder + "/murmur.yaml")
    << "name: plain\nversion: 1.0.0\ninference:\n  transport: process\n"
       "  command: [/usr/bin/python3, hostile_member.py, program]\n"
       "tools:\n  - name: probe\n    command: [/usr/bin/python3, hostile_member.py, server]\n"
       "capabilities:\n  limits: {pids: 64, memory_mib: 128}\n";
  for (const auto& e : fs::recursive_directory_iterator(t.path)) (void)::chown(e.path().c_str(), 65534, 65534);
  (void)::chown(t.path.c_str(), 65534, 65534);
  auto as_nobody = [&](const std::string& task) {
    return run_command({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", MUR_BINARY, "run",
                        "--manifest", folder, "--workdir", work, "--task", task},
                       {{"MURMUR_HOME", home}, {"HOME", t.path}, {"PATH", "/usr/bin:/bin"}});
  };
  Ran probe = run_command({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", MUR_BINARY,
                           "doctor", folder, "--json"},
                          {{"MURMUR_HOME", home}, {"HOME", t.path}, {"PATH", "/usr/bin:/bin"}});
  INFO(probe.out << probe.err);
  const json isolation = json::parse(probe.out)["isolation"];
  CHECK_FALSE(isolation["resource_limits"]["present"].get<bool>()); // nobody makes no control groups

  const std::string marker = "plain" + std::to_string(::getpid());
  Ran r = as_nobody("pids: 1 home: " + home + " marker: " + marker);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("warning W-LIM-001: plain: capabilities.limits do not all hold here: memory_mib: ") !=
        std::string::npos);
  CHECK(r.err.find("(memory_mib binds each program's address space instead)") != std::string::npos);
  if (isolation["pid_namespace"]["present"].get<bool>()) {
    CHECK(isolation["pid_namespace"]["user_namespace"].get<bool>());
    CHECK(r.out.find("REACHED") == std::string::npos);
    CHECK(r.out.find("processes seen: 2\n") != std::string::npos);
    CHECK(none_named_within(marker, generous)); // the server's sleeper too: the session has ended
  } else {
    WARN("this kernel gives an ordinary user no user namespace: " << isolation["pid_namespace"]["text"]);
  }
  CHECK(r.out.find("capabilities: 0000000000000000") != std::string::npos);

  // memory_mib binds the program's address space: its allocation fails, the member is untouched.
  Ran memory = as_nobody("eat-memory");
  INFO(memory.out << memory.err);
  CHECK(memory.exit_code == 1);
  const std::string said = memory.out + memory.err;
  CHECK(said.find("E-HAR-002: the agent program exited with status 1") != std::string::npos);
  CHECK(said.find("MemoryError") != std::string::npos);
  CHECK(said.find("REACHED") == std::string::npos);
}

TEST_CASE("a program reaches what capabilities.network.allow grants through its member's proxy, and nothing else",
          "[process][isolation]") {
  HostileFormation h; // for doctor's view of this machine
  if (!h.claims("network")) {
    WARN("doctor claims no network namespace here: nothing to assert");
    return;
  }
  // A server on the machine's loopback that answers each connection once.
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(listener, 8) == 0);
  socklen_t len = sizeof a;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
  const std::string port = std::to_string(ntohs(a.sin_port));
  std::thread server([listener] {
    for (int i = 0; i < 2; ++i) {
      const int c = ::accept(listener, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      (void)!::read(c, buf, sizeof buf);
      const std::string reply = "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello";
      (void)!::write(c, reply.data(), reply.size());
      ::close(c);
    }
  });
  ToolCapsule c("name: net\nversion: 1.0.0\ninference:\n  transport: process\n  command: [python3, fetch.py]\n"
                  "capabilities: {network: {allow: ['localhost:" + port + "']}}\n");
  std::ofstream(c.folder.path + "/fetch.py")
    << "import json, socket, sys, urllib.error, urllib.request\n"
       "turn = json.loads(sys.stdin.readline())\n"
       "def get(url):\n"
       "    try:\n"
       "        return urllib.request.urlopen(url, timeout=5).read().decode()\n"
       "    except urllib.error.HTTPError as e:\n"
       "        return '%d %s' % (e.code, json.loads(e.read())['error']['message'])\n"
       "def direct():\n"
       "    try:\n"
       "        socket.create_connection(('127.0.0.1', " + port + "), timeout=3); return 'REACHED'\n"
       "    except OSError as e:\n"
       "        return 'refused'\n"
       "print(get('http://127.0.0.1:" + port + "/') + ' | ' + get('http://localhost:" + port + "/x') + ' | ' + "
       "get('http://example.org/') + ' | direct ' + direct())\n";
  Ran r = run_command(c.run_argv({"--task", "fetch"}), c.env);
  ::shutdown(listener, SHUT_RDWR);
  ::close(listener);
  server.join();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("hello | hello | 403 example.org:80 is refused: not in capabilities.network.allow") != std::string::npos);
  CHECK(r.out.find("direct refused") != std::string::npos);
  // The refusal is in the member's trace, from the proxy itself (the program cannot write there).
  const auto refused = c.events("egress_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["program"] == "the agent program");
  CHECK(refused[0]["host"] == "example.org");
  CHECK(refused[0]["port"] == 80);
  CHECK(refused[0]["tls"] == false);
  CHECK(refused[0]["why"] == "not in capabilities.network.allow");
}

namespace {

// Whether `needle` is anywhere in the readable memory of process `pid` (the test runs as root).
bool memory_holds(pid_t pid, const std::string& needle) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  const int mem = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
  if (mem < 0) return false;
  bool found = false;
  for (std::string line; !found && std::getline(maps, line);) {
    unsigned long long from = 0, to = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %4s", &from, &to, perms) != 3 || perms[0] != 'r') continue;
    if (line.find("[vvar") != std::string::npos || to - from > (1ull << 30)) continue;
    std::string region(static_cast<std::size_t>(to - from), '\0');
    const ssize_t n = ::pread(mem, region.data(), region.size(), static_cast<off_t>(from));
    if (n > 0) found = std::string_view(region.data(), static_cast<std::size_t>(n)).find(needle) != std::string_view::npos;
  }
  ::close(mem);
  return found;
}

} // namespace

TEST_CASE("a member is handed only the keys its capsule reads: another member's is nowhere in its memory",
          "[process][isolation]") {
  if (::geteuid() != 0) {
    WARN("reading a member's memory needs root: not run here");
    return;
  }
  FormationFixture f;
  TempDir capsules;
  // Each capsule's tool server reads a key of its own (a script member calls nothing else).
  auto capsule = [&](const std::string& name, const std::string& var) {
    const std::string dir = capsules.path + "/" + name;
    fs::create_directories(dir);
    fs::copy_file(hostile, dir + "/hostile_member.py");
    std::ofstream(dir + "/murmur.yaml")
      << "name: " << name << "\nversion: 1.0.0\ntools:\n  - name: probe\n    command: [python3, hostile_member.py, server]\n"
      << "    env: {KEY: '${" << var << "}'}\ninference:\n  turns:\n    - reply: ok\n"
      << "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n"
      << "exports: {peer_tasks: {accept: true}}\n";
    f.install(dir);
  };
  capsule("keyed-a", "MUR_TEST_KEY_OF_A");
  capsule("keyed-b", "MUR_TEST_KEY_OF_B");
  std::ofstream(f.project.path + "/roster.yaml", std::ios::trunc)
    << "roster_version: 1\nmembers:\n  - {name: a, capsule: keyed-a, version: 1.0.0, entry: true}\n"
    << "  - {name: b, capsule: keyed-b, version: 1.0.0}\n";
  const std::string key_a = "key-of-a-" + std::to_string(::getpid()) + "-7f3e", key_b = "key-of-b-" + std::to_string(::getpid()) + "-91c2";
  f.env["MUR_TEST_KEY_OF_A"] = key_a;
  f.env["MUR_TEST_KEY_OF_B"] = key_b;
  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--json"}, f.env);
  Serving s = serve(run);
  INFO(run.err());
  REQUIRE(s.pids.size() == 2);
  const pid_t b = s.pids[0], a = s.pids[1]; // the peer's, then the entry's
  CHECK(memory_holds(a, key_a)); // each holds its own: the scan sees what is there
  CHECK(memory_holds(b, key_b));
  CHECK_FALSE(memory_holds(a, key_b)); // and never the other's
  CHECK_FALSE(memory_holds(b, key_a));
  run.signal(SIGTERM);
  run.wait();
}

TEST_CASE("a member whose runtime the kernel ends for its group's memory_mib is named E-LIM-001 by the launcher",
          "[process][isolation][limits]") {
  HostileFormation h; // for doctor's view of this machine
  if (!h.claims("resource_limits")) {
    WARN("doctor claims no resource limits here: " << h.isolation["resource_limits"]["text"].get<std::string>());
    return;
  }
  // A peer whose program eats memory, its runtime the one the kernel picks (as a runtime that
  // grew would be); the entry calls it.
  TempDir greedy, lead;
  fs::copy_file(hostile, greedy.path + "/hostile_member.py");
  std::ofstream(greedy.path + "/murmur.yaml")
    << "name: greedy\nversion: 1.0.0\ninference:\n  transport: process\n"
       "  command: [python3, hostile_member.py, program]\ncapabilities:\n  limits: {memory_mib: 192}\n"
       "exports: {peer_tasks: {accept: true}}\nnetwork: {authentication: {scheme: bearer}}\n"
       "lifecycle: {after_task: sleep}\n";
  std::ofstream(lead.path + "/murmur.yaml")
    << "name: glead\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n"
       "    - call: {member: greedy, task: eat-memory}\n    - reply: \"{{answer.greedy}}\"\n"
       "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n"
       "network: {authentication: {scheme: bearer}}\ncapabilities: {network: {allow: [localhost]}}\n";
  h.f.install(greedy.path);
  h.f.install(lead.path);
  std::ofstream(h.f.project.path + "/roster.yaml")
    << "roster_version: 1\nmembers:\n  - {name: lead, capsule: glead, version: 1.0.0, entry: true}\n"
       "  - {name: greedy, capsule: greedy, version: 1.0.0}\nreachability:\n  - {from: lead, to: [greedy]}\n";
  LaunchedMur run({MUR_BINARY, "run", "--roster", h.f.project.path, "--json"}, h.f.env);
  Serving s = serve(run);
  const std::string greedy_pid = std::to_string(s.pids.front());
  std::ofstream(std::string("/proc/") + greedy_pid + "/oom_score_adj") << "1000\n";
  Ran sent = run_command({MUR_BINARY, "send", s.id(), "go"}, h.f.env);
  INFO(sent.out << sent.err);
  CHECK(run.wait() == 69); // a member's fault ends the formation
  INFO(run.err());
  CHECK(run.err().find("member 'greedy' (pid " + greedy_pid + ") was killed by signal 9 (SIGKILL) while the formation ran "
                       "(E-LIM-001: the kernel ended the runtime of member 'greedy': its member reached "
                       "capabilities.limits.memory_mib (192 MiB") != std::string::npos);
  CHECK(run.err().find("Fix: raise capabilities.limits.memory_mib") != std::string::npos);
}
