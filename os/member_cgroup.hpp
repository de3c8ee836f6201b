// member_cgroup.hpp — a member's resource limits (capsule `capabilities.limits`): one control
// group holding the member runtime and every process it starts (its agent program's runs, its
// tool servers, its delegated children), bounded together.
//
// Invariant: enter_member_cgroup makes a group of its own beneath the one this process is in —
// in each cgroup v1 hierarchy of a controller it needs (memory, pids, cpu), or in the unified
// (v2) hierarchy when that one delegates the controllers — writes each limit asked, and only
// then moves this process in; what it starts afterwards is inside, and stays inside. A limit
// the machine cannot hold (no such controller, no right to make groups) is not claimed:
// `applied` lists what holds, `why` says what does not. Exceeding memory_mib has the kernel end
// a process of the group (never one outside it); exceeding pids refuses a fork or a thread
// inside the group; cpu_percent throttles it. The counters (oom_kills, pids_refused) read what
// the kernel counted since the group was made. leave_member_cgroup moves this process back out
// and removes the group; a group left behind by a member that was killed is removed by the
// next member that enters a group beside it (only when its process is gone and it is empty).
// Rule: resource limits per member (docs/isolation.md §Resources).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct ResourceBounds {
  std::optional<std::int64_t> memory_mib;  // the member and its processes together
  std::optional<std::int64_t> pids;        // processes and threads together
  std::optional<std::int64_t> cpu_percent; // of one CPU (200: two CPUs)
  bool any() const { return memory_mib || pids || cpu_percent; }
};

struct MemberCgroup {
  std::string kind;                  // "cgroup v1", "cgroup v2", or "" (none made)
  std::vector<std::string> dirs;     // the groups made (one per v1 hierarchy, one under v2)
  std::string memory_dir, pids_dir;  // where the counters are read ("" when that limit is not held)
  std::vector<std::string> applied;  // "memory_mib", "pids", "cpu_percent" that hold
  std::string why;                   // what could not be held, and why ("" when all asked hold)
};

struct LimitCounts {
  std::uint64_t oom_kills = 0;    // processes the kernel ended for the memory limit
  std::uint64_t pids_refused = 0; // forks and threads refused for the pids limit
};

// The group is `mur-<this pid>-<name>` (name: e.g. the session id). Nothing is made when
// !bounds.any().
MemberCgroup enter_member_cgroup(const std::string& name, const ResourceBounds& bounds);
LimitCounts limit_counts(const MemberCgroup& group);
void leave_member_cgroup(const MemberCgroup& group);

// The group a member that has ended left behind (`mur-<member>-…`, beneath this process's own
// group, where that member made it): what the kernel counted in it and the limits it held; it is
// then removed when it is empty (else the next member's sweep removes it). `found` is false when
// that member made none.
struct LeftGroup {
  bool found = false;
  LimitCounts counts;
  ResourceBounds bounds;
};
LeftGroup read_left_group(pid_t member);

// Whether this process could make a bounded group here, and of which kind ("" and why when
// not): made and removed at once, for mur doctor.
std::string probe_member_cgroup(std::string& why);

} // namespace mur
