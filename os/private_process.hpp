// private_process.hpp — a mur process whose memory, environment and descriptors no other
// process of the same user can read.
//
// Invariant: after make_process_private(), this process is not dumpable: /proc/<pid>/environ,
// mem, maps, fd/ and ptrace are refused to every process that lacks CAP_SYS_PTRACE (and every
// member's programs lack all capabilities, os/confined_start.hpp), though all run as one user.
// It writes no core file. And its environment block — the bytes the kernel shows as
// /proc/<pid>/environ, where the user's API keys arrive — is wiped but for the runtime's own
// MURMUR_* entries (which hold no secret): the environment lives on in this process's own
// memory only (getenv and what it starts see it unchanged). Every `mur`
// process calls it first, before any thread starts and before anything reads the environment.
// Rule: keys live in memory only, readable by no member's program (docs/isolation.md §Secrets).
#pragma once

namespace mur {

void make_process_private();

} // namespace mur
