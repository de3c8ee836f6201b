// private_process.hpp — a mur process whose memory, environment and descriptors no other
// process of the same user can read.
//
// Invariant: after make_process_private(), this process is not dumpable: /proc/<pid>/environ,
// mem, maps, fd/ and ptrace are refused to every process that lacks CAP_SYS_PTRACE (and every
// member's programs lack all capabilities, os/confined_start.hpp), though all run as one user.
// It writes no core file. Every `mur` process calls it first, so the API keys in the launcher's
// and members' environment and the keys and tokens in their memory stay theirs.
// Rule: keys live in memory only, readable by no member's program (docs/isolation.md §Secrets).
#pragma once

namespace mur {

void make_process_private();

} // namespace mur
