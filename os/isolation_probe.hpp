// isolation_probe.hpp — what sealing this machine gives a member's programs, found by doing it:
// mur-confine --probe goes through every step a program's start takes and says what held.
//
// Invariant: a layer is reported present only when the probe put it in place here (a pid
// namespace it entered, a /proc it mounted, a Landlock domain it joined, capabilities it
// dropped, a filter it installed, a bounded control group it made, entered and removed); a probe
// that cannot run reports nothing present and says why. So what `mur doctor` claims is what the
// programs get.
// Rule: mur doctor says what isolation this machine gives (docs/isolation.md §What doctor says).
#pragma once

#include <string>

namespace mur {

struct IsolationProbe {
  bool ran = false;            // mur-confine --probe ran and answered
  std::string why;             // !ran: why not; else why there is no pid namespace ("" if there is)
  bool pid_namespace = false;  // a pid and mount namespace of the program's own
  bool user_namespace = false; // entered through a user namespace (mur is not root)
  bool private_proc = false;   // a /proc of that namespace only
  bool network = false;        // a network namespace of its own, left only through the egress proxy
  int landlock = 0;            // the Landlock ABI joined (0: none)
  bool capabilities_dropped = false;
  bool seccomp = false;
  std::string resource_groups;     // e.g. "cgroup v1 (memory_mib, pids, cpu_percent)"; "" when none can be made
  std::string resource_groups_why; // what cannot be held, and why
};

IsolationProbe probe_isolation();

// The probe's line (`key=value …`) read into `probe` (ran = true).
IsolationProbe read_probe_line(const std::string& line);

} // namespace mur
