// A member runtime sealed by seal_member_runtime (member/member_seal.hpp), in a forked child of
// this test (one thread, as a member is when it seals itself): what it may and may not reach, its
// capabilities and filter as the kernel reports them, and what its starter starts for it — even
// when it asks for more than its own seal.
#include "capsule/manifest.hpp"
#include "member/member_seal.hpp"
#include "os/harness_isolation.hpp"
#include "os/program_starter.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

bool can_read(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  return in && std::getline(in, s);
}

bool can_write(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "x\n", 2) == 2;
  ::close(fd);
  return ok;
}

bool can_list(const fs::path& p) {
  DIR* d = ::opendir(p.c_str());
  if (d == nullptr) return false;
  ::closedir(d);
  return true;
}

std::string status_line(const std::string& key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) {
      std::string v = line.substr(key.size() + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "?";
}

// Runs `script` under /bin/sh through the starter (as `kind`, with `plan` for a confined one),
// waits for it as its parent and returns what it wrote.
std::string run_started(mur::StartKind kind, const mur::IsolationPlan& plan, const fs::path& dir, const std::string& script,
                        bool& reaped) {
  const fs::path out_file = dir / "out.txt";
  const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) return "cannot open out.txt";
  mur::SpawnRequest rq;
  rq.program = "/bin/sh";
  rq.argv = {"sh", "-c", script};
  rq.env = {"PATH=/usr/bin:/bin"};
  rq.stdout_fd = rq.stderr_fd = out;
  rq.cwd = dir.string();
  pid_t pid = -1;
  try {
    pid = kind == mur::StartKind::confined ? mur::spawn_isolated(rq, plan)
                                           : mur::start_through(mur::program_starter(), rq, kind);
  } catch (const std::exception& e) {
    ::close(out);
    return std::string("not started: ") + e.what();
  }
  ::close(out);
  int status = 0;
  reaped = ::waitpid(pid, &status, 0) == pid; // a child of this process, though its starter made it
  std::ifstream in(out_file);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

} // namespace

TEST_CASE("a sealed member runtime reaches its own directory and no other member's, nor does anything it starts",
          "[isolation][process]") {
  if (mur::landlock_abi_version() == 0) {
    WARN("this kernel has no Landlock: a member runs unsealed (W-ISO-004), nothing to test here");
    return;
  }
  mur::test::TempHome h("seal");
  const fs::path home = h.dir / "home";
  const fs::path own = home / "formations/frm_1/alpha", sibling = home / "formations/frm_1/beta";
  const fs::path capsule = home / "artifacts/alpha/1.0.0", running = home / "running";
  for (const auto& d : {own, sibling, capsule, running}) fs::create_directories(d);
  std::ofstream(sibling / "secret.txt") << "beta's secret\n";
  std::ofstream(capsule / "murmur.yaml") << "name: alpha\n";
  std::ofstream(running / "ses_other.json") << "{\"operator_token\": \"mdt1.other\"}\n";

  mur::Manifest m;
  m.name = "alpha";
  m.folder = capsule.string();
  mur::MemberPlace place;
  place.workdir = own.string();
  place.session_id = "ses_alpha";

  int report[2];
  REQUIRE(::pipe(report) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(report[0]);
    FILE* out = ::fdopen(report[1], "w");
    auto say = [&](const std::string& key, bool yes) { std::fprintf(out, "%s=%s\n", key.c_str(), yes ? "yes" : "no"); };
    try {
      const mur::MemberSeal seal = mur::seal_member_runtime(m, place);
      say("sealed", seal.sealed);
    } catch (const std::exception& e) {
      std::fprintf(out, "failure=%s\n", e.what());
      std::fflush(out);
      _exit(1);
    }
    say("own_write", can_write(own / "made.txt"));
    say("capsule_read", can_read(capsule / "murmur.yaml"));
    say("sibling_read", can_read(sibling / "secret.txt"));
    say("sibling_write", can_write(sibling / "planted.txt"));
    say("sibling_list", can_list(sibling));
    // Its running record: made and renamed into place, but no other record read, nor the directory listed.
    say("record_write", can_write(running / "ses_alpha.json.tmp") &&
                          ::rename((running / "ses_alpha.json.tmp").c_str(), (running / "ses_alpha.json").c_str()) == 0);
    say("record_read", can_read(running / "ses_other.json"));
    say("running_list", can_list(running));
    say("system_read", can_read("/etc/passwd"));
    say("system_write", can_write("/etc/mur-seal-probe"));
    say("no_new_privs", status_line("NoNewPrivs") == "1");
    say("seccomp_filter", status_line("Seccomp") == "2");
    say("no_capabilities", status_line("CapEff") == "0000000000000000" &&
                             (::getuid() != 0 || status_line("CapBnd") == "0000000000000000"));

    // A program it asks its starter for with a plan wider than its own seal (as a member taken
    // over might): the seal it was started under still holds it.
    mur::IsolationPlan wide;
    wide.mechanism = mur::IsolationPlan::Mechanism::landlock;
    wide.landlock_abi = mur::landlock_abi_version();
    wide.full = {"/"};
    bool reaped = false;
    const std::string wide_out = run_started(mur::StartKind::confined, wide, own,
                                             "cat " + (sibling / "secret.txt").string() + " || echo refused", reaped);
    say("wide_program_refused", wide_out.find("refused") != std::string::npos && wide_out.find("beta's") == std::string::npos);
    say("wide_program_reaped", reaped);
    // A delegated child (kind sealed): held by the same seal, with a starter of its own.
    reaped = false;
    const std::string child_out = run_started(mur::StartKind::sealed, {}, own,
                                              "cat " + (sibling / "secret.txt").string() +
                                                " || echo refused; echo starter=${MURMUR_STARTER_FD:-none}",
                                              reaped);
    say("child_refused", child_out.find("refused") != std::string::npos && child_out.find("beta's") == std::string::npos);
    say("child_has_starter", child_out.find("starter=none") == std::string::npos &&
                               child_out.find("starter=") != std::string::npos);
    say("child_reaped", reaped);
    std::fflush(out);
    _exit(0);
  }
  ::close(report[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) text.append(buf, std::size_t(n));
  ::close(report[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO(text);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::map<std::string, std::string> seen;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (const auto eq = line.find('='); eq != std::string::npos) seen[line.substr(0, eq)] = line.substr(eq + 1);
  const std::map<std::string, std::string> expected{
    {"sealed", "yes"},          {"own_write", "yes"},        {"capsule_read", "yes"},       {"sibling_read", "no"},
    {"sibling_write", "no"},    {"sibling_list", "no"},      {"record_write", "yes"},       {"record_read", "no"},
    {"running_list", "no"},     {"system_read", "yes"},      {"system_write", "no"},        {"no_new_privs", "yes"},
    {"seccomp_filter", "yes"},  {"no_capabilities", "yes"},  {"wide_program_refused", "yes"},
    {"wide_program_reaped", "yes"}, {"child_refused", "yes"}, {"child_has_starter", "yes"}, {"child_reaped", "yes"},
  };
  for (const auto& [key, want] : expected) {
    INFO("attempt " << key);
    CHECK(seen[key] == want);
  }
  CHECK(fs::exists(running / "ses_alpha.json"));
  fs::remove("/etc/mur-seal-probe"); // in case the seal did not hold
}
