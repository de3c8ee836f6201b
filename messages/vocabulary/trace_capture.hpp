// trace_capture.hpp — how much of a task a session's trace keeps: murmur.yaml's
// `trace.capture: none | meta | content` (docs/manifest.md, docs/traces.md §Transcripts).
//
// Invariant: one word table for the three levels, read by the manifest and written nowhere
// else; `meta` (the default) is the trace as it always was; `content` adds, at each task's end,
// its whole model transcript as a blob (`blobs/<sha256>`) that `task_end` names; `none` is
// `meta` (docs/traces.md says why).
// Rule: trace.capture none|meta (default)|content — hashes / blobs (the reference system's
// manifest key).
#pragma once

#include "messages/vocabulary/enum_words.hpp"

#include <cstdint>

namespace mur {

enum class TraceCapture : std::uint8_t { none, meta, content };

inline constexpr EnumWords<TraceCapture, 3> trace_capture_words{
  {{TraceCapture::none, "none"}, {TraceCapture::meta, "meta"}, {TraceCapture::content, "content"}}};

} // namespace mur
