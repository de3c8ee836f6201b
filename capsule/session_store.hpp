// session_store.hpp — where the sessions of an agent program working in the user's own
// directory are kept: `$MURMUR_HOME/sessions/<ses_id>/`, linked from `<workdir>/.murmur/<ses_id>`.
//
// Invariant: a member's trace lies where its agent program cannot write. A program run in a
// directory mur made gets `work/` beside its sessions (member/program_dir.hpp); a program run in
// the user's directory (the entry member, `mur run --capsule`) owns that directory and its
// `.murmur/`, so its session is made in this store — inside $MURMUR_HOME, which is hidden from
// every agent program — and only a symbolic link stands in `.murmur/`. A reader trusts a session
// reached through a link only when the link resolves inside this store: a program may delete or
// re-point its link, never change what a genuine session holds.
// Rule: docs/harness.md "Where it runs".
#pragma once

#include <string>

namespace mur {

// $MURMUR_HOME/sessions
std::string session_store();

// A session directory `dir` (`<root>/.murmur/<ses_id>`) may be read: it is a directory of its own,
// or a symbolic link that resolves inside session_store().
bool trusted_session_place(const std::string& dir);

} // namespace mur
