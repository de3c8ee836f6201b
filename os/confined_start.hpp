// confined_start.hpp — the small program (`mur-confine`, beside `mur`) that every agent program
// and stdio tool server of a member is started through: it seals the program, then becomes it
// or watches over it.
//
// Invariant: the program named after `--` starts only once every layer this machine gives is in
// place, in this order (each later one forbids the earlier):
//   1. its own pid namespace and mount namespace (as root, or in a user namespace of its own
//      mapping only the caller's uid and gid), with a /proc of that namespace only: it sees no
//      process but its own descendants, so no member's, launcher's or other program's
//      /proc/<pid>/environ, memory or descriptors. A first process (this one) stays as the
//      namespace's init: it passes SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 on,
//      reaps orphans, and when the program ends it ends too, and with it (by the kernel) every
//      process the program left behind, `setsid` or not. The outer process mirrors the
//      program's exit status or signal to whoever started it;
//   2. Landlock by the plan read from descriptor 3 (os/harness_isolation.hpp), no_new_privs,
//      and the plan's per-process bounds (RLIMIT_NOFILE, RLIMIT_AS), hard and soft alike;
//   3. no capabilities: none effective, permitted, inheritable or ambient, an empty bounding set
//      (so a program run as root holds none of root's privileges), and securebits that keep
//      execve from granting them again;
//   4. the syscall filter (os/syscall_filter.hpp).
// Descriptor 3 is closed before the program starts; it inherits only 0, 1 and 2. A layer the
// machine lacks (no namespaces: an unprivileged user without user namespaces; no Landlock) is
// left out and said once on stderr as W-ISO-002 / W-ISO-001; a layer that is there but fails is
// E-ISO-001 on stderr and exit 126, and the program never starts.
// `--probe` instead of a program: the same steps, then one line `key=value …` on stdout of what
// held (what `mur doctor` reports). `--bound-fd N` (given by a member's starter): a second plan
// read from descriptor N whose Landlock rules the program gets on top of its own (the member's
// seal). `--starter` alone: the member's program starter (os/program_starter.hpp).
// Rule: every member's programs are sealed (docs/isolation.md).
#pragma once

namespace mur {

int confined_start_main(int argc, char** argv);

} // namespace mur
