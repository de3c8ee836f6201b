// trace_event.hpp — one line of a session's trace, as actors hand it to the trace port.
//
// Invariant: fields are a JSON object (as text, so the message stays printable and
// comparable); the trace port adds the envelope (event_type, event_id, parent_id, session_id,
// timestamp). No field ever holds a token or a URL.
// Rule: a closed lifeline is recorded as formation_ended (docs/spec/door.md §The lifeline).
#pragma once

#include "messages/vocabulary/message_fields.hpp"

#include <string>

namespace mur {

struct TraceEvent {
  std::string type;   // session_start, a2a_task_received, task_start, member_call_busy, …
  std::string fields; // a JSON object
  MUR_FIELDS(type, fields)
};

} // namespace mur
