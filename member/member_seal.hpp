// member_seal.hpp — the member runtime itself sealed, as its programs are: a member's process
// reaches its own directory and nothing of any other member's.
//
// Invariant: after seal_member_runtime() returns `sealed`, this process and every thread and
// process it starts (1) may read and execute the system and its installed capsule (with the
// stores when it may delegate), write only its own directory, its session (also where the
// session store keeps it), the formation's live ledger, its $TMPDIR, the temporary directories,
// the terminal and a few devices, and create or remove — never read or list — files in
// $MURMUR_HOME/running (its running record); everything else under $MURMUR_HOME and, for a peer,
// <project>/.murmur is out of its reach (Landlock); (2) holds no capability; (3) runs behind the
// syscall filter (os/syscall_filter.hpp). It is done before the first thread starts (Landlock
// binds the calling thread and what it starts). Its programs and delegated children are then
// started by its starter (os/program_starter.hpp) — a delegated child inherits its parent's and
// seals itself inside its parent's seal. Where the kernel has no Landlock the member runs
// unsealed and W-ISO-004 says so once on stderr; a layer that is there but fails is E-ISO-001
// and the member does not start.
// Rule: every member confined, the member runtime itself (docs/isolation.md §The member runtime).
#pragma once

#include "capsule/manifest.hpp"

#include <string>

namespace mur {

// Where the member works and what it writes besides.
struct MemberPlace {
  std::string workdir;    // its own directory (the project directory for the entry)
  std::string session_id;
  std::string live_dir;   // the live ledger it takes children's slots from ("" for none beyond its session)
  std::string store_root; // where its project store lies (a delegating capsule resolves children there)
};

// What held: the Landlock ABI (0: none), the filter, the capabilities; `why` when not sealed.
struct MemberSeal {
  bool sealed = false;
  int landlock = 0;
  bool seccomp = false;
  bool capabilities_dropped = false;
  std::string why;
};

// Seals this process as the member running `m` at `place` (single-threaded caller). Throws
// Failure E-ISO-001.
MemberSeal seal_member_runtime(const Manifest& m, const MemberPlace& place);

} // namespace mur
