// trace_write_failure.hpp — how a session remembers that its trace could not be written whole:
// the marker file `trace.incomplete` beside `trace.jsonl` in the session directory.
//
// Invariant: the marker exists exactly when some write(2) of the session's trace wrote less than
// it was given or failed; its first line says the first such failure (when the disk had room
// for it: an empty marker, created even on a full disk, still says "a write failed"). Only the
// session's own sink creates it (member/session_dir.cpp); readers (mur trace show) only read it.
// Rule: a short or failed trace write is said on stderr and warned of at the next trace show
// (docs/traces.md).
#pragma once

#include <string>

namespace mur {

// <session_dir>/trace.incomplete
std::string trace_incomplete_path(const std::string& session_dir);

// Creates the marker (once) and appends `what` as a line when it can; never throws.
void mark_trace_incomplete(const std::string& session_dir, const std::string& what);

// The marker's first line ("a write of the trace failed" for an empty marker), or "" when there
// is no marker.
std::string trace_write_failure(const std::string& session_dir);

} // namespace mur
