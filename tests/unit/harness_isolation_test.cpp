// A real child started with an isolation plan tries to read a sibling member's directory.
#include "messages/vocabulary/failure.hpp"
#include "os/harness_isolation.hpp"
#include "os/isolation_probe.hpp"
#include "messages/credentials/egress_grant.hpp"
#include "os/egress_gate.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Tree {
  fs::path root = fs::temp_directory_path() / ("mur-iso-" + std::to_string(::getpid()));
  fs::path home = root / "home";                       // stands for $MURMUR_HOME
  fs::path own = home / "formations/frm_1/alpha";      // this member's directory
  fs::path sibling = home / "formations/frm_1/beta";   // another member's
  fs::path other_formation = home / "formations/frm_2/gamma";
  fs::path capsule = home / "artifacts/alpha/1.0.0";
  fs::path other_capsule = home / "artifacts/beta/1.0.0";
  fs::path outside = root / "outside";
  Tree() {
    fs::remove_all(root);
    for (const auto& d : {own, sibling, other_formation, capsule, other_capsule, outside}) fs::create_directories(d);
    std::ofstream(own / "mine.txt") << "mine\n";
    std::ofstream(sibling / "secret.txt") << "beta's secret\n";
    std::ofstream(other_formation / "secret.txt") << "gamma's secret\n";
    std::ofstream(capsule / "prompt.md") << "Be brief.\n";
    std::ofstream(other_capsule / "prompt.md") << "another capsule\n";
    std::ofstream(outside / "notes.txt") << "outside\n";
  }
  ~Tree() { fs::remove_all(root); }
};

// Runs `script` under /bin/sh in `cwd` with the plan; returns its `name=yes|no` lines.
std::map<std::string, std::string> run_isolated(const mur::IsolationPlan& plan, const std::string& cwd,
                                                const std::string& script, const fs::path& out_file) {
  const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(out >= 0);
  mur::SpawnRequest req;
  req.program = "/bin/sh";
  req.argv = {"sh", "-c", script};
  req.env = {"PATH=/usr/bin:/bin"};
  req.stdout_fd = out;
  req.stderr_fd = out;
  req.cwd = cwd;
  req.own_process_group = true;
  const pid_t pid = mur::spawn_isolated(req, plan);
  ::close(out);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  std::map<std::string, std::string> seen;
  std::ifstream in(out_file);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && line.find(' ') == std::string::npos) seen[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return seen;
}

std::string probe(const std::string& name, const std::string& command) {
  return "if " + command + " >/dev/null 2>&1; then echo " + name + "=yes; else echo " + name + "=no; fi\n";
}

// One probe of a child's reach: its name, its command, and the answer expected (yes or no).
struct Probe {
  std::string name, command, expected;
};

// Runs the probes in order in one child (in `cwd`, under the plan) and checks each one's answer.
void check_probes(const mur::IsolationPlan& plan, const std::string& cwd, const fs::path& out_file,
                  const std::vector<Probe>& probes) {
  std::string script;
  for (const auto& p : probes) script += probe(p.name, p.command);
  const auto seen = run_isolated(plan, cwd, script, out_file);
  for (const auto& [name, command, expected] : probes) {
    INFO("probe " << name << ": " << command);
    CHECK(seen.at(name) == expected);
  }
}

} // namespace

TEST_CASE("a program under its plan cannot reach a sibling member's directory", "[isolation][process]") {
  Tree t;
  const mur::IsolationPlan plan = mur::isolation_for(t.own.string(), t.capsule.string(), t.home.string());
  if (mur::landlock_abi_version() == 0) {
    // No mechanism here: the plan must say so, and the launcher's warning names the code.
    CHECK(plan.mechanism == mur::IsolationPlan::Mechanism::none);
    CHECK_FALSE(plan.why.empty());
    CHECK(mur::isolation_warning(plan, "alpha").rfind("W-ISO-001", 0) == 0);
    WARN("this kernel has no Landlock; the isolation test only checked the warning");
    return;
  }
  REQUIRE(plan.mechanism == mur::IsolationPlan::Mechanism::landlock);
  CHECK(mur::isolation_warning(plan, "alpha").empty());
  std::vector<Probe> probes = {
    {"own_read", "cat mine.txt", "yes"},
    {"own_write", "sh -c 'echo new > made.txt'", "yes"},
    {"own_mkdir", "mkdir sub", "yes"},
    {"capsule_read", "cat " + (t.capsule / "prompt.md").string(), "yes"},
    {"capsule_write", "sh -c 'echo x > " + (t.capsule / "x.txt").string() + "'", "no"},
    {"sibling_read", "cat ../beta/secret.txt", "no"},
    {"sibling_read_abs", "cat " + (t.sibling / "secret.txt").string(), "no"},
    {"sibling_list", "ls ../beta", "no"},
    {"sibling_write", "sh -c 'echo x > ../beta/planted.txt'", "no"},
    {"other_formation_read", "cat " + (t.other_formation / "secret.txt").string(), "no"},
    {"other_capsule_read", "cat " + (t.other_capsule / "prompt.md").string(), "no"},
    {"via_symlink", "sh -c 'ln -s ../beta/secret.txt link && cat link'", "no"},
    {"via_proc_root", "cat /proc/self/root" + (t.sibling / "secret.txt").string(), "no"},
    {"outside_read", "cat " + (t.outside / "notes.txt").string(), "yes"},
    {"outside_write", "sh -c 'echo x > " + (t.outside / "made.txt").string() + "'", "yes"}, // under /tmp
    {"system_read", "cat /etc/passwd", "yes"},
    {"system_write", "sh -c 'echo x > /etc/mur-iso-probe-" + std::to_string(::getpid()) + "'", "no"}, // even as root
  };
  // An interpreter from the system starts and imports what a harness needs (node, python3).
  if (::access("/usr/bin/python3", X_OK) == 0) probes.push_back({"python_runs", "python3 -c 'import json, urllib.request, re'", "yes"});
  if (::access("/usr/bin/node", X_OK) == 0) probes.push_back({"node_runs", "node -e 'require(\"http\")'", "yes"});
  check_probes(plan, t.own.string(), t.root / "out.txt", probes);
  CHECK(fs::exists(t.own / "made.txt"));
  CHECK_FALSE(fs::exists(t.sibling / "planted.txt"));
  // The restriction went with the child: this process still reads the sibling's file.
  std::ifstream secret(t.sibling / "secret.txt");
  std::string line;
  CHECK(std::getline(secret, line));
  CHECK(line == "beta's secret");
}

TEST_CASE("the same child without isolation reads the sibling (the probe can fail)", "[isolation][process]") {
  Tree t;
  mur::IsolationPlan none; // mechanism none: spawn_process as it is
  const auto seen = run_isolated(none, t.own.string(), probe("sibling_read", "cat ../beta/secret.txt"),
                                 t.root / "out.txt");
  CHECK(seen.at("sibling_read") == "yes");
}

TEST_CASE("an own directory that holds the hidden root does not reopen it", "[isolation]") {
  Tree t;
  if (mur::landlock_abi_version() == 0) return;
  const auto plan = mur::isolation_for(t.root.string(), t.capsule.string(), t.home.string());
  CHECK(plan.own_dir_limited);
  for (const auto& p : plan.full) CHECK(fs::path(p) != t.root);
  check_probes(plan, t.root.string(), t.outside / "out.txt",
               {{"sibling_read", "cat home/formations/frm_1/beta/secret.txt", "no"},
                {"outside_read", "cat outside/notes.txt", "yes"}});
}

TEST_CASE("a capsule folder that is missing when the turn starts fails with E-ISO-001", "[isolation]") {
  Tree t;
  if (mur::landlock_abi_version() == 0) return;
  const auto plan = mur::isolation_for(t.own.string(), (t.home / "artifacts/gone/1.0.0").string(), t.home.string());
  mur::SpawnRequest req;
  req.program = "/bin/true";
  req.argv = {"true"};
  try {
    mur::spawn_isolated(req, plan);
    FAIL("started");
  } catch (const mur::Failure& f) {
    CHECK(f.code() == "E-ISO-001");
    CHECK_FALSE(f.fix().empty());
  }
}

TEST_CASE("a peer also kept out of the project's .murmur still reads the project", "[isolation][process]") {
  Tree t;
  if (mur::landlock_abi_version() == 0) return;
  const fs::path project = t.root / "project";
  fs::create_directories(project / ".murmur/ses_entry");
  std::ofstream(project / ".murmur/ses_entry/trace.jsonl") << "{}\n";
  std::ofstream(project / "main.c") << "int main(){}\n";
  const auto plan = mur::isolation_for(t.own.string(), t.capsule.string(),
                                       std::vector<std::string>{t.home.string(), (project / ".murmur").string()});
  CHECK(plan.hidden_roots.size() == 2);
  CHECK_FALSE(plan.own_dir_limited);
  check_probes(plan, t.own.string(), t.outside / "out.txt",
               {{"project_read", "cat " + (project / "main.c").string(), "yes"},
                {"entry_trace_read", "cat " + (project / ".murmur/ses_entry/trace.jsonl").string(), "no"},
                {"sibling_read", "cat ../beta/secret.txt", "no"},
                {"own_write", "sh -c 'echo x > made.txt'", "yes"}});
}

TEST_CASE("a plan travels to mur-confine whole, paths with spaces and newlines too", "[isolation]") {
  mur::IsolationPlan plan;
  plan.mechanism = mur::IsolationPlan::Mechanism::landlock;
  plan.landlock_abi = 6;
  plan.hidden_roots = {"/home/u/.murmur", "/p/with space/.murmur"};
  plan.full = {"/usr", "/home/u/a\nb", "/tmp"};
  plan.read_exec = {"/home/u/.murmur/artifacts/x/1.0.0"};
  plan.write_only = {"/home/u/.murmur/running"};
  plan.scope_signals = false;
  const mur::IsolationPlan back = mur::decode_plan(mur::encode_plan(plan));
  CHECK(back.write_only == plan.write_only);
  CHECK_FALSE(back.scope_signals);
  CHECK(mur::decode_plan(mur::encode_plan(mur::IsolationPlan{})).scope_signals);
  CHECK(back.mechanism == plan.mechanism);
  CHECK(back.landlock_abi == 6);
  CHECK(back.hidden_roots == plan.hidden_roots);
  CHECK(back.full == plan.full);
  CHECK(back.read_exec == plan.read_exec);
  CHECK(mur::decode_plan("").mechanism == mur::IsolationPlan::Mechanism::none);
  CHECK(mur::decode_plan(std::string("full\0/x", 7)).full.empty()); // a field cut short is not read
}

TEST_CASE("a program started sealed sees only its own processes and takes its exit code with it", "[isolation]") {
  const std::string probe_dir = (fs::temp_directory_path() / ("mur-seal-" + std::to_string(::getpid()))).string();
  fs::create_directories(probe_dir);
  mur::SpawnRequest req;
  req.program = "/bin/sh";
  req.argv = {"sh", "-c", "ls /proc | grep -c '^[0-9]' > " + probe_dir + "/seen; exit 7"};
  req.env = {"PATH=/usr/bin:/bin"};
  req.cwd = probe_dir;
  const pid_t pid = mur::spawn_isolated(req, mur::isolation_for(probe_dir, probe_dir, std::vector<std::string>{}));
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  std::ifstream seen(probe_dir + "/seen");
  int count = 0;
  seen >> count;
  if (mur::probe_isolation().private_proc) CHECK(count <= 4); // init, sh, ls, grep
  else WARN("this machine gives no pid namespace: " << mur::probe_isolation().why);
  fs::remove_all(probe_dir);
}

TEST_CASE("doctor's probe line is read as written", "[isolation]") {
  auto p = mur::read_probe_line(
    "pid_namespace=yes user_namespace=no private_proc=yes landlock=7 capabilities=none seccomp=yes why=-");
  CHECK(p.ran);
  CHECK(p.pid_namespace);
  CHECK_FALSE(p.user_namespace);
  CHECK(p.private_proc);
  CHECK(p.landlock == 7);
  CHECK(p.capabilities_dropped);
  CHECK(p.seccomp);
  CHECK(p.why.empty());
  auto q = mur::read_probe_line("pid_namespace=no landlock=0 capabilities=kept seccomp=no why=unshare:_Operation_not_permitted");
  CHECK_FALSE(q.pid_namespace);
  CHECK(q.why == "unshare: Operation not permitted");
  CHECK_FALSE(q.capabilities_dropped);
}

TEST_CASE("a program's egress is granted as capabilities.network.allow names it", "[isolation]") {
  using mur::judge_egress;
  const std::vector<std::string> allow{"localhost:8080", "api.example.com", "http://plain.example.org",
                                       "https://secure.example.org:8443", "[::1]:9000"};
  CHECK(judge_egress(allow, "127.0.0.1", 8080, false).granted);
  CHECK(judge_egress(allow, "LOCALHOST.", 8080, true).granted);
  CHECK(judge_egress(allow, "127.0.0.2", 8080, false).granted); // every loopback address
  CHECK_FALSE(judge_egress(allow, "127.0.0.1", 8081, false).granted);
  CHECK(judge_egress(allow, "API.example.com", 443, true).granted); // a bare host: any port, either way
  CHECK(judge_egress(allow, "api.example.com", 5432, false).granted);
  CHECK_FALSE(judge_egress(allow, "evil.api.example.com", 443, true).granted);
  CHECK(judge_egress(allow, "plain.example.org", 80, false).granted);
  CHECK_FALSE(judge_egress(allow, "plain.example.org", 80, true).granted);  // http:// is not a tunnel
  CHECK_FALSE(judge_egress(allow, "plain.example.org", 8080, false).granted); // nor another port
  CHECK(judge_egress(allow, "secure.example.org", 8443, true).granted);
  CHECK_FALSE(judge_egress(allow, "secure.example.org", 8443, false).granted);
  CHECK_FALSE(judge_egress(allow, "secure.example.org", 443, true).granted);
  CHECK(judge_egress(allow, "::1", 9000, false).granted);
  CHECK(judge_egress(allow, "[::1]", 9000, true).granted);
  const auto refused = judge_egress(allow, "example.net", 443, true);
  CHECK_FALSE(refused.granted);
  CHECK(refused.why == "not in capabilities.network.allow");
  CHECK_FALSE(refused.virtual_address);
  // A member's virtual address, whatever the list says.
  for (const char* host : {"coder.formation.invalid", "Coder.Formation.Invalid."}) {
    const auto v = judge_egress({"coder.formation.invalid", host, "localhost"}, host, 80, false);
    CHECK_FALSE(v.granted);
    CHECK(v.virtual_address);
  }
  CHECK_FALSE(judge_egress({}, "localhost", 80, false).granted);
}

TEST_CASE("a proxy request head is read, and the head sent on is origin-form, one request a connection", "[isolation]") {
  const auto get = mur::read_proxy_request("GET http://Example.org:8080/a/b?c=1 HTTP/1.1\r\nHost: example.org:8080\r\n"
                                           "Proxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\n"
                                           "Keep-Alive: timeout=5\r\nAccept: */*\r\n");
  CHECK(get.problem.empty());
  CHECK_FALSE(get.tls);
  CHECK(get.host == "Example.org");
  CHECK(get.port == 8080);
  CHECK(get.head_out == "GET /a/b?c=1 HTTP/1.1\r\nHost: example.org:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n");
  const auto bare = mur::read_proxy_request("POST http://10.0.0.1 HTTP/1.0\r\n");
  CHECK(bare.port == 80);
  CHECK(bare.head_out.rfind("POST / HTTP/1.0\r\n", 0) == 0);
  const auto connect = mur::read_proxy_request("CONNECT [::1]:8443 HTTP/1.1\r\nHost: x\r\n");
  CHECK(connect.tls);
  CHECK(connect.host == "::1");
  CHECK(connect.port == 8443);
  CHECK(connect.head_out.empty());
  for (const char* bad : {"", "GET\r\n", "GET /relative HTTP/1.1\r\n", "GET https://x.example/ HTTP/1.1\r\n",
                          "CONNECT x.example HTTP/1.1\r\n", "CONNECT x.example:99999 HTTP/1.1\r\n",
                          "CONNECT :443 HTTP/1.1\r\n", "GET http://x.example:0/ HTTP/1.1\r\n",
                          "GET http://x.example:80a/ HTTP/1.1\r\n"}) {
    INFO(bad);
    CHECK_FALSE(mur::read_proxy_request(bad).problem.empty());
  }
}
