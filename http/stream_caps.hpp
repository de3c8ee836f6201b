// stream_caps.hpp — how large a streamed Chat Completions answer may grow, like the 16 MiB cap
// on a non-streamed reply: its text, its reasoning, its tool-call arguments and one SSE event.
//
// Invariant: every streamed model answer is read under these caps; the first one passed fails the
// request with the code naming it (E-MOD-033 text, 034 reasoning, 035 tool-call arguments, 036
// one event) and ENDS it: the transfer is aborted, nothing more is read or stored. A fragment
// that would pass the text cap is not handed on. The event cap is checked on the pool's thread
// as the bytes arrive (http/sse_events.hpp), the others where the stream is read
// (http/chat_completions.hpp, in the model port's actor).
// Rule: every stream a model server sends is capped; docs/models.md "Limits".
#pragma once

#include <cstddef>

namespace mur {

// The cap on a non-streamed reply's whole body (CurlPool's max_body for model calls).
inline constexpr std::size_t model_reply_max_body = 16u * 1024 * 1024;

enum class StreamCap { text, reasoning, tool_arguments, event };

struct StreamCaps {
  std::size_t text = 16u * 1024 * 1024;           // the answer's text, all content deltas together
  std::size_t reasoning = 16u * 1024 * 1024;      // reasoning_content deltas together (counted, never kept)
  std::size_t tool_arguments = 4u * 1024 * 1024;  // the arguments of all tool calls of one answer together
  std::size_t event = 8u * 1024 * 1024;           // one SSE event (its data and other lines, unfinished or not)
};

// How many bytes of a model stream's events may wait for the model port's actor at once: past
// it the transfer is paused until the actor has read them (CurlPool's delivery window), so what
// is queued between the client thread and the actor stays bounded whatever the server's speed.
inline constexpr std::size_t model_stream_window = 1024u * 1024;

// Any other event stream mur reads (a door's SubscribeToTask and SendStreamingMessage, followed
// by the egress and by `mur send`): one event at most this long. A door's final event carries
// the whole answer, and a model member's answer is at most StreamCaps::text, so this is four times
// that to leave room for JSON escaping.
inline constexpr std::size_t door_stream_max_event = 64u * 1024 * 1024;

} // namespace mur
