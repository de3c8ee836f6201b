// trace_context.hpp — the W3C trace context one operator task's trace carries across members:
// `traceparent` (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>) and mur's span ids.
//
// Invariant: a span id is derived from mur's own ids alone (the first 8 bytes of SHA-256 of the
// span's kind and id), so a caller knows the id of the span its callee will name as parent
// without keeping any state, and a simulation replays it; a trace id is the caller's, or derived
// from the task id of a task that arrived without one. A traceparent that is not exactly the
// W3C form (version 00, lowercase hex, not all zero) is ignored, never repaired.
// Rule: one operator task is one trace however many members and hosts it crosses
// (docs/observability.md §Propagation).
#pragma once

#include <optional>
#include <string>

namespace mur {

struct TraceContext {
  std::string trace_id; // 32 lowercase hex
  std::string span_id;  // 16 lowercase hex
};

// The context of a valid W3C traceparent, nullopt for anything else.
std::optional<TraceContext> parse_traceparent(const std::string& header);
// `00-<trace>-<span>-01` (sampled).
std::string format_traceparent(const std::string& trace_id, const std::string& span_id);

// A new trace for a task that arrived without one.
std::string trace_id_of_task(const std::string& task_id);
// The spans of one member's story (docs/observability.md §The span tree).
std::string task_span_id(const std::string& task_id);                             // invoke_agent
std::string call_span_id(const std::string& call_id);                             // execute_tool of mcl_/dlg_
std::string chat_span_id(const std::string& task_id, long long turn, long long step); // chat
std::string tool_span_id(const std::string& task_id, const std::string& tool_call_id, long long turn); // execute_tool

} // namespace mur
