// formation_bench.cpp — real formations, timed: time to ready against member count (1, 4, 16,
// 32), RSS per member, teardown time after SIGKILL of the launcher, and one call-member hop's
// latency (from the caller's member_call trace events). Prints numbers; asserts nothing.
// Usage: bench_formation_bench [path/to/mur]  (default: the `mur` beside this binary)
#include "os/member_pipes.hpp"
#include "os/pid_wait.hpp"
#include "os/process_spawn.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string mur_binary;
std::string home;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Child {
  pid_t pid = -1;
  mur::UniqueFd out;
  std::string read_line() {
    std::string line;
    char c;
    while (::read(out.get(), &c, 1) == 1 && c != '\n') line.push_back(c);
    return line;
  }
  int wait() {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

Child start(const std::vector<std::string>& args, const std::string& cwd_unused = {}) {
  (void)cwd_unused;
  mur::PipeEnds p = mur::make_pipe();
  mur::SpawnRequest rq;
  rq.program = mur_binary;
  rq.argv = {"mur"};
  rq.argv.insert(rq.argv.end(), args.begin(), args.end());
  rq.env = mur::current_environment();
  mur::set_env_entry(rq.env, "MURMUR_HOME", home);
  rq.stdout_fd = p.write.get();
  int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  rq.stderr_fd = devnull;
  Child c;
  c.pid = mur::spawn_process(rq);
  ::close(devnull);
  c.out = std::move(p.read);
  return c;
}

int run(const std::vector<std::string>& args) { return start(args).wait(); }

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

// Capsules: an entry that calls `worker` once (or answers at once), and a worker.
void install_capsules(const std::string& dir) {
  write(dir + "/entry/murmur.yaml",
        "name: bench-entry\nversion: 1.0.0\ninference:\n  transport: script\n  routes:\n    - match: \"^call\"\n"
        "      turns:\n        - call: {member: w1, task: \"{{task}}\"}\n        - reply: \"{{answer.w1}}\"\n"
        "  turns:\n    - reply: ok\nlifecycle: {task_acceptance: single, after_task: exit}\n"
        "capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n");
  write(dir + "/worker/murmur.yaml",
        "name: bench-worker\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n    - reply: done\n"
        "lifecycle: {task_acceptance: queue, queue_depth: 4, after_task: sleep}\nexports: {peer_tasks: {accept: true}}\n"
        "network: {authentication: {scheme: bearer}}\n");
  run({"install", "-g", dir + "/entry"});
  run({"install", "-g", dir + "/worker"});
}

std::string roster(int members) {
  std::string r = "roster_version: 1\nmembers:\n  - {name: lead, capsule: bench-entry, version: 1.0.0, entry: true}\n";
  for (int i = 1; i < members; ++i)
    r += "  - {name: w" + std::to_string(i) + ", capsule: bench-worker, version: 1.0.0}\n";
  if (members > 1) r += "reachability:\n  - {from: lead, to: [w1]}\n";
  return r;
}

} // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  mur_binary = argc > 1 ? argv[1] : (fs::canonical("/proc/self/exe").parent_path() / "mur").string();
  const fs::path root = fs::temp_directory_path() / ("mur-formation-bench-" + std::to_string(::getpid()));
  home = (root / "home").string();
  install_capsules((root / "capsules").string());

  std::printf("%-8s %14s %16s %18s\n", "members", "ready (ms)", "RSS/member (KiB)", "teardown (ms)");
  for (int n : {1, 4, 16, 32}) {
    const std::string project = (root / ("p" + std::to_string(n))).string();
    write(project + "/roster.yaml", roster(n));
    const auto t0 = Clock::now();
    Child launcher = start({"run", "--roster", project, "--json"});
    json formation = json::parse(launcher.read_line(), nullptr, false);
    json entry = json::parse(launcher.read_line(), nullptr, false);
    const double ready = ms_since(t0);
    if (!formation.is_object() || !entry.is_object()) {
      std::printf("%-8d launch failed\n", n);
      launcher.wait();
      continue;
    }
    std::vector<pid_t> pids;
    for (const auto& p : formation["peers"]) pids.push_back(p["pid"].get<pid_t>());
    pids.push_back(entry["pid"].get<pid_t>());
    long rss = 0;
    for (pid_t p : pids) rss += rss_kib(p);
    const auto t1 = Clock::now();
    ::kill(launcher.pid, SIGKILL);
    launcher.wait();
    const bool gone = mur::wait_pids_gone(pids, std::chrono::seconds(60));
    const double teardown = ms_since(t1);
    std::printf("%-8d %14.1f %16ld %17.1f%s\n", n, ready, rss / long(pids.size()), teardown, gone ? "" : " (NOT all gone)");
  }

  // One call-member hop: the lead's member_call duration for a task it hands w1, 20 times.
  const std::string project = (root / "hop").string();
  write(project + "/roster.yaml", roster(2));
  Child launcher = start({"run", "--roster", project, "--json"});
  json formation = json::parse(launcher.read_line(), nullptr, false);
  launcher.read_line();
  const std::string frm = formation.value("formation_id", "");
  std::vector<double> sends;
  for (int i = 0; i < 20; ++i) {
    const auto t = Clock::now();
    run({"send", frm, "call " + std::to_string(i)});
    sends.push_back(ms_since(t));
  }
  ::kill(launcher.pid, SIGTERM);
  launcher.wait();
  std::vector<double> hops;
  for (const auto& ses : fs::directory_iterator(project + "/.murmur")) {
    std::ifstream in(ses.path() / "trace.jsonl");
    for (std::string line; std::getline(in, line);) {
      auto j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("event_type", "") == "member_call") hops.push_back(j.value("duration_ms", 0.0));
    }
  }
  std::sort(hops.begin(), hops.end());
  std::sort(sends.begin(), sends.end());
  if (!hops.empty())
    std::printf("call-member hop (lead → w1, %zu calls): median %.0f ms, max %.0f ms (trace duration_ms)\n", hops.size(),
                hops[hops.size() / 2], hops.back());
  std::printf("mur send round trip through the entry (20 tasks): median %.1f ms\n", sends[sends.size() / 2]);
  std::error_code ec;
  fs::remove_all(root, ec);
  return 0;
}
