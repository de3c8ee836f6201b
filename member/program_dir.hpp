// program_dir.hpp — where a member's agent program (`transport: process`) runs, and what of the
// member's own directory it must not reach: the session directories mur trusts (trace.jsonl,
// trace.incomplete, out/, logs/, children/).
//
// Invariant: when the member's directory W is one mur made for it — a formation peer's
// `$MURMUR_HOME/formations/<frm>/<member>/` or a delegated child's `<parent session dir>/
// children/<dlg>/`, i.e. W lies under $MURMUR_HOME or under a `.murmur/` directory — the program
// runs in `W/work/` (created, 0700) and W itself is hidden from it, so W/.murmur/ (its sessions,
// their traces) lies beside the program's directory and out of its reach (Landlock,
// os/harness_isolation.hpp); so is the `.murmur/` W lies under (the parent's sessions).
// Otherwise (the entry member's project directory, `mur run --capsule`'s directory, both the
// user's) the program runs in W itself and W/.murmur/ stays within its reach: hiding it would
// take from the program the right to create files at the top of its own directory.
// Its private HOME (unless the capsule asks for the real one, capabilities.home: real) is made
// beside it, 0700: `W/work/.home/` when W is mur's, else `W/.murmur/home/` (the entry's project:
// in mur's own folder of it, not among the user's files). Either lies where the program may write,
// so `~/.cache`, `~/.npm` and `~/.config` work on a first run; its `tmp/` is their TMPDIR (a
// temporary directory no other member shares).
// Rule: a member's trace lives where its agent program cannot write (docs/harness.md);
// programs get a private HOME (docs/isolation.md §Files).
#pragma once

#include <string>
#include <vector>

namespace mur {

struct ProgramDir {
  std::string dir;                      // the program's working directory
  std::vector<std::string> hidden;      // roots to hide from it beyond $MURMUR_HOME (may be empty)
  bool trace_in_reach = false;          // the member's sessions lie inside `dir`
  std::string home;                     // the programs' private HOME (made)
};

// For member directory `workdir` (absolute or relative), given $MURMUR_HOME. Creates W/work/
// when it is used, and the private HOME (E-RUN-007 when it cannot).
ProgramDir program_dir_for(const std::string& workdir, const std::string& murmur_home);

} // namespace mur
