// member_cgroup.cpp — see member_cgroup.hpp.
#include "os/member_cgroup.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>

namespace mur {
namespace {

struct Hierarchy {
  std::string dir; // this process's group in it ("" when the controller has none)
  bool v2 = false;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

// Where this process's group lies in the hierarchy of `controller`: a v1 hierarchy of its own
// when one is mounted, else the unified one when it offers the controller.
Hierarchy hierarchy_of(const std::string& controller) {
  std::string v1_mount, v1_root, v2_mount, v2_root;
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const auto left = split(line.substr(0, dash), ' ');
    const auto right = split(line.substr(dash + 3), ' ');
    if (left.size() < 5 || right.size() < 3) continue;
    if (right[0] == "cgroup2") {
      v2_mount = left[4];
      v2_root = left[3];
    } else if (right[0] == "cgroup") {
      for (const auto& opt : split(right[2], ','))
        if (opt == controller) {
          v1_mount = left[4];
          v1_root = left[3];
        }
    }
  }
  std::string v1_path, v2_path;
  bool has_v2 = false;
  std::ifstream groups("/proc/self/cgroup");
  for (std::string line; std::getline(groups, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string ctrls = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (ctrls.empty()) {
      v2_path = path;
      has_v2 = true;
    }
    for (const auto& c : split(ctrls, ','))
      if (c == controller) v1_path = path;
  }
  auto join = [](const std::string& mount, const std::string& root, std::string path) {
    if (root != "/" && path.compare(0, root.size(), root) == 0) path = path.substr(root.size());
    return mount + (path == "/" ? "" : path);
  };
  if (!v1_mount.empty() && !v1_path.empty()) return {join(v1_mount, v1_root, v1_path), false};
  if (!v2_mount.empty() && has_v2) {
    const std::string dir = join(v2_mount, v2_root, v2_path);
    std::ifstream offered(dir + "/cgroup.controllers");
    std::string word;
    while (offered >> word)
      if (word == controller) return {dir, true};
  }
  return {};
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// The number after `key` in a file of `key value` lines (0 when absent).
std::uint64_t counter(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

// Groups mur-<pid>-… beside a new one whose process is gone (a member that was killed): removed
// when empty. A live process's group is never touched, even while it is still being made.
void sweep_left_behind(const std::string& parent) {
  DIR* d = ::opendir(parent.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, "mur-", 4) != 0) continue;
    const long pid = std::strtol(e->d_name + 4, nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      ::rmdir((parent + "/" + e->d_name).c_str());
  }
  ::closedir(d);
}

struct Controller {
  const char* limit;      // the capabilities.limits key
  const char* controller; // the kernel's name
};

} // namespace

MemberCgroup enter_member_cgroup(const std::string& name, const ResourceBounds& bounds) {
  MemberCgroup g;
  if (!bounds.any()) return g;
  const std::string group_name = "mur-" + std::to_string(::getpid()) + "-" + name;
  bool v1 = false, v2 = false;
  std::vector<std::string> made;
  auto fail = [&](const std::string& what) { g.why += (g.why.empty() ? "" : "; ") + what; };
  auto group_in = [&](const Hierarchy& h, const std::string& controller) -> std::string {
    const std::string dir = h.dir + "/" + group_name;
    if (h.v2) { // the one controller handed down, unless it is already (a v2 group with processes cannot)
      std::ifstream enabled(h.dir + "/cgroup.subtree_control");
      bool on = false;
      for (std::string word; enabled >> word;) on = on || word == controller;
      if (!on && !write_text(h.dir + "/cgroup.subtree_control", "+" + controller)) return "";
    }
    for (const auto& m : made)
      if (m == dir) return dir;
    sweep_left_behind(h.dir);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return "";
    made.push_back(dir);
    return dir;
  };
  const Controller wanted[] = {{"memory_mib", "memory"}, {"pids", "pids"}, {"cpu_percent", "cpu"}};
  for (const Controller& c : wanted) {
    const std::string limit = c.limit;
    const auto& value = limit == "memory_mib" ? bounds.memory_mib : limit == "pids" ? bounds.pids : bounds.cpu_percent;
    if (!value) continue;
    const Hierarchy h = hierarchy_of(c.controller);
    if (h.dir.empty()) {
      fail(limit + ": this machine offers no " + c.controller + " controller");
      continue;
    }
    const std::string dir = group_in(h, c.controller);
    if (dir.empty()) {
      const int err = errno;
      fail(limit + ": cannot make a group under " + h.dir + " (" + std::strerror(err) + ")");
      continue;
    }
    bool ok = false;
    if (limit == "memory_mib") {
      const std::string bytes = std::to_string(*value * 1024 * 1024);
      ok = write_text(dir + (h.v2 ? "/memory.max" : "/memory.limit_in_bytes"), bytes);
      if (ok && h.v2) write_text(dir + "/memory.swap.max", "0"); // no swap to spill into, where there is swap
      if (ok) g.memory_dir = dir;
    } else if (limit == "pids") {
      ok = write_text(dir + "/pids.max", std::to_string(*value));
      if (ok) g.pids_dir = dir;
    } else {
      const std::int64_t period = 100000, quota = *value * 1000;
      ok = h.v2 ? write_text(dir + "/cpu.max", std::to_string(quota) + " " + std::to_string(period))
                : write_text(dir + "/cpu.cfs_period_us", std::to_string(period)) &&
                    write_text(dir + "/cpu.cfs_quota_us", std::to_string(quota));
    }
    if (!ok) {
      fail(limit + ": the kernel refused the limit in " + dir);
      continue;
    }
    g.applied.push_back(limit);
    (h.v2 ? v2 : v1) = true;
  }
  // Every group is ready: now this process moves in (and what it starts, after).
  const std::string self = std::to_string(::getpid());
  for (const auto& dir : made)
    if (!write_text(dir + "/cgroup.procs", self)) {
      fail("cannot enter " + dir + " (" + std::strerror(errno) + ")");
      g.applied.clear();
      g.memory_dir.clear();
      g.pids_dir.clear();
    }
  g.dirs = made;
  g.kind = v1 && v2 ? "cgroup v1 and v2" : v1 ? "cgroup v1" : v2 ? "cgroup v2" : "";
  return g;
}

LimitCounts limit_counts(const MemberCgroup& g) {
  LimitCounts c;
  if (!g.memory_dir.empty()) {
    c.oom_kills = counter(g.memory_dir + "/memory.events", "oom_kill");
    if (c.oom_kills == 0) c.oom_kills = counter(g.memory_dir + "/memory.oom_control", "oom_kill");
  }
  if (!g.pids_dir.empty()) c.pids_refused = counter(g.pids_dir + "/pids.events", "max");
  return c;
}

void leave_member_cgroup(const MemberCgroup& g) {
  const std::string self = std::to_string(::getpid());
  for (const auto& dir : g.dirs) {
    const std::string parent = dir.substr(0, dir.rfind('/'));
    write_text(parent + "/cgroup.procs", self);
    ::rmdir(dir.c_str());
  }
}

LeftGroup read_left_group(pid_t member) {
  LeftGroup left;
  const std::string prefix = "mur-" + std::to_string(member) + "-";
  // The limit a file holds, in `unit`s ("max" and v1's page-rounded "no limit" are none).
  auto limit_in = [](const std::string& path, std::int64_t unit) -> std::optional<std::int64_t> {
    std::ifstream in(path);
    std::string word;
    if (!(in >> word) || word.empty() || !std::isdigit(static_cast<unsigned char>(word[0]))) return std::nullopt;
    const unsigned long long v = std::strtoull(word.c_str(), nullptr, 10);
    if (v >= (1ull << 62)) return std::nullopt;
    return static_cast<std::int64_t>(v / static_cast<unsigned long long>(unit));
  };
  for (const char* controller : {"memory", "pids"}) {
    const Hierarchy h = hierarchy_of(controller);
    if (h.dir.empty()) continue;
    DIR* d = ::opendir(h.dir.c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) != 0) continue;
      const std::string dir = h.dir + "/" + e->d_name;
      left.found = true;
      MemberCgroup group; // its counters, read as the member itself reads them
      if (std::string(controller) == "memory") {
        group.memory_dir = dir;
        left.counts.oom_kills = limit_counts(group).oom_kills;
        left.bounds.memory_mib = limit_in(dir + (h.v2 ? "/memory.max" : "/memory.limit_in_bytes"), 1024 * 1024);
      } else {
        group.pids_dir = dir;
        left.counts.pids_refused = limit_counts(group).pids_refused;
        left.bounds.pids = limit_in(dir + "/pids.max", 1);
      }
      ::rmdir(dir.c_str());
    }
    ::closedir(d);
  }
  return left;
}

std::string probe_member_cgroup(std::string& why) {
  ResourceBounds b;
  b.memory_mib = 1024 * 1024;
  b.pids = 1000000;
  b.cpu_percent = 100000;
  const MemberCgroup g = enter_member_cgroup("probe", b);
  leave_member_cgroup(g);
  why = g.why;
  if (g.applied.empty()) return "";
  std::string held;
  for (const auto& a : g.applied) held += (held.empty() ? "" : ", ") + a;
  return g.kind + " (" + held + ")";
}

} // namespace mur
