// transcript_index.hpp — which task of a watched formation has a recorded transcript, and where:
// what `GET /transcript?task=tsk_…` of `mur view` may read (docs/traces.md §Transcripts).
//
// Invariant: a path in the index is always `<a session dir the view found>/blobs/<64 lowercase
// hex>`, the hex taken from that session's own `task_end.transcript_sha256`; nothing of a request
// reaches a path — a request's task id is only a key. A task the traces name with no recorded
// transcript (capture meta or none, or still running) is in the index with no path. Reading a
// blob opens it without following a symbolic link, reads at most `max_blob_bytes`, and hands it
// out only when its sha256 is its name.
// Rule: a click on a task shows its transcript (docs/traces.md §Watching in a browser).
#pragma once

#include "launcher/traces/trace_tree.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct TranscriptEntry {
  std::string blob_path; // "" when none was recorded
  bool ended = false;    // its task_end has been read
};

using TranscriptIndex = std::map<std::string, TranscriptEntry>; // by task id

// Every task of `sessions` (whose trace directories are `dirs`, index for index).
TranscriptIndex transcript_index(const std::vector<SessionEvents>& sessions, const std::vector<std::string>& dirs);

inline constexpr std::size_t max_blob_bytes = 5 * 1024 * 1024; // above the writer's cap (actors/transcript_blob.hpp)

// The blob's bytes; nullopt when it is missing, too large or not what its name says.
std::optional<std::string> read_transcript_blob(const std::string& path);

} // namespace mur
