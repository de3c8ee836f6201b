// member_limits.hpp — a member's `capabilities.limits` put in place when it starts: its group
// (os/member_cgroup.hpp) for memory, processes and CPU, and what each of its programs gets per
// process where no group holds it.
//
// Invariant: a limit the capsule sets either holds — the member runtime and everything it starts
// are inside the group before the actor system's first thread — or is said, once, on stderr as
// W-LIM-001 naming the limit and why it does not hold (never silently dropped). A memory limit no
// group holds still binds each program's address space (RLIMIT_AS, weaker: per process, and
// counting memory it only reserves); open_files binds each program's descriptors.
// Rule: resource limits per member (docs/isolation.md §Resources).
#pragma once

#include "capsule/manifest.hpp"
#include "os/harness_isolation.hpp"
#include "os/member_cgroup.hpp"

#include <string>

namespace mur {

ResourceBounds bounds_of(const Manifest& m);

// Enters the member's group (named for its session), warning W-LIM-001 for what does not hold.
MemberCgroup enter_member_limits(const Manifest& m, const std::string& session_id);

// The per-process bounds of the member's programs, given the group it is in.
void bound_programs(const Manifest& m, const MemberCgroup& group, IsolationPlan& plan);

// Why a program (`subject`: "the agent program", "the tool server 'files'") ended, when the
// member's limits explain it: E-LIM-001 (killed, and the kernel counted an OOM kill since
// `reached` began), E-LIM-002 (it failed, and forks or threads were refused). `code_and_what`
// is empty when they do not.
struct LimitReached {
  std::string code_and_what, fix;
};
LimitReached limit_reached(const std::string& subject, const LimitCounts& reached, const ResourceBounds& bounds,
                           int signal, int exit_status);

// What the counters counted between `start` and `now`.
LimitCounts counted_since(const LimitCounts& start, const LimitCounts& now);

} // namespace mur
