// trace_blob_file.hpp — a session's content blobs: `<session dir>/blobs/<sha256>`, each the bytes
// of one recorded transcript (trace.capture: content; docs/traces.md §Transcripts).
//
// Invariant: a blob's file name is the sha256 (lowercase hex) of its bytes, computed here from the
// bytes written, never taken from a caller; the directory is owner-only (0700) and each file 0600;
// a blob appears whole or not at all (written to a temporary name, then renamed); a blob already
// there is not written again. A blob that cannot be written costs only itself: one W-TRC-004 line
// on stderr per session, and the session goes on.
// Rule: trace.capture content keeps blobs/<sha256> in the session dir (the reference system's
// session layout).
#pragma once

#include <string>

namespace mur {

// Writes `bytes` as `session_dir`/blobs/<sha256 of bytes>; its name, or "" when it failed.
std::string write_trace_blob(const std::string& session_dir, const std::string& bytes);

} // namespace mur
