// member_limits.cpp — see member_limits.hpp.
#include "member/member_limits.hpp"

#include <algorithm>
#include <iostream>

namespace mur {

ResourceBounds bounds_of(const Manifest& m) {
  ResourceBounds b;
  b.memory_mib = m.resources.memory_mib;
  b.pids = m.resources.pids;
  b.cpu_percent = m.resources.cpu_percent;
  return b;
}

MemberCgroup enter_member_limits(const Manifest& m, const std::string& session_id) {
  MemberCgroup group = enter_member_cgroup(session_id, bounds_of(m));
  if (!group.why.empty())
    std::cerr << "warning W-LIM-001: " << m.name << ": capabilities.limits do not all hold here: " << group.why
              << (m.resources.memory_mib && group.memory_dir.empty()
                    ? " (memory_mib binds each program's address space instead)"
                    : "")
              << ". Fix: run mur where it may make control groups (as root, or under a delegated cgroup v2 "
                 "subtree); mur doctor shows what this machine gives\n";
  return group;
}

void bound_programs(const Manifest& m, const MemberCgroup& group, IsolationPlan& plan) {
  plan.open_files = m.resources.open_files;
  if (m.resources.memory_mib && group.memory_dir.empty()) plan.address_space_mib = m.resources.memory_mib;
}

LimitReached limit_reached(const std::string& subject, const LimitCounts& reached, const ResourceBounds& bounds,
                           int signal, int exit_status) {
  if (signal == 9 && reached.oom_kills > 0 && bounds.memory_mib)
    return {"E-LIM-001: the kernel ended " + subject + ": its member reached capabilities.limits.memory_mib (" +
              std::to_string(*bounds.memory_mib) + " MiB, the member and its programs together)",
            "raise capabilities.limits.memory_mib in murmur.yaml, or make the program use less memory"};
  if ((signal != 0 || exit_status != 0) && reached.pids_refused > 0 && bounds.pids)
    return {"E-LIM-002: " + subject + " " +
              (signal != 0 ? "was ended by signal " + std::to_string(signal)
                           : "exited with status " + std::to_string(exit_status)) +
              " after " + std::to_string(reached.pids_refused) +
              " of its processes or threads could not start: its member reached capabilities.limits.pids (" +
              std::to_string(*bounds.pids) + ")",
            "raise capabilities.limits.pids in murmur.yaml, or make the program start fewer processes"};
  return {};
}

LimitCounts counted_since(const LimitCounts& start, const LimitCounts& now) {
  return {now.oom_kills - start.oom_kills, now.pids_refused - start.pids_refused};
}

} // namespace mur
