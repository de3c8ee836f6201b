// transcript_blob.hpp — a task's model transcript as the JSON document `trace.capture: content`
// keeps in `blobs/<sha256>` (docs/traces.md §Transcripts): the system message, the task, every
// assistant message with its tool calls, every tool result, the answer.
//
// Invariant: pure (no file, no clock); the document is at most `transcript_blob_cap` bytes: each
// text (a message's content, a tool call's arguments) is cut to 64 KiB like answers are, and when
// the whole is still larger the oldest messages after the system message are left out (counted
// in `messages_left_out`), never the last one (which alone may pass the cap only
// when it carries many tool calls of 64 KiB each). It holds only what the model was sent and
// answered: the runtime puts no token, key or door URL in a transcript (call results are fenced
// answers, actors/answer_fence.hpp).
// Rule: a click on a task shows its transcript as recorded with trace.capture: content
// (docs/traces.md §Transcripts).
#pragma once

#include "messages/vocabulary/transcript.hpp"

#include <cstddef>
#include <string>

namespace mur {

inline constexpr std::size_t transcript_blob_cap = 4 * 1024 * 1024;

// {"task_id", "member", "messages": [{role, content, tool_calls: [{id, name, arguments}],
// tool_call_id}], "texts_cut", "messages_left_out"} as compact JSON text.
std::string transcript_blob(const std::string& task_id, const std::string& member, const Transcript& transcript,
                            std::size_t cap = transcript_blob_cap);

} // namespace mur
