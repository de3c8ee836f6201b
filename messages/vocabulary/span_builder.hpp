// span_builder.hpp — a member's spans, built from the same trace events it writes to its
// trace.jsonl: task_start/task_end → `invoke_agent`, `inference` → `chat`, member_call and
// delegation → `execute_tool` (call-member / delegate), an own tool's tool_call → `execute_tool`.
//
// Invariant: pure — the spans depend on the lines alone (their timestamps, ids and counts), so a
// simulation and a real member build the same ones. A span is emitted when its event that ends
// it arrives (task_end, member_call, delegation, inference, tool_call), with the span ids of
// messages/vocabulary/trace_context.hpp, under its task's trace; a task whose task_start named
// no parent is a root. Memory: one entry per task still running, dropped at its task_end.
// Nothing of a task's, an answer's or a tool's text is copied into a span.
// Rule: docs/observability.md §The span tree.
#pragma once

#include "messages/vocabulary/otel_span.hpp"

#include <map>
#include <string>
#include <vector>

namespace mur {

class SpanBuilder {
public:
  // The spans that `line` (one trace line as the recorder writes it) ends; unreadable lines and
  // events that end no span give none.
  std::vector<OtelSpan> take(const std::string& line);

  // What session_start said: the resource of this member's spans (service.instance.id = the session).
  std::vector<OtelAttribute> resource(const std::string& service_name) const;

private:
  struct OpenTask {
    std::string trace_id;
    std::string parent_span_id;
    std::string context_id;
    std::string origin;
    std::uint64_t start_ns = 0;
  };
  std::string session_id_, formation_id_, member_, capsule_, spawned_by_, delegation_;
  std::map<std::string, OpenTask> tasks_;
  std::string trace_of(const std::string& task_id) const;
  void add_ids(OtelSpan& s, const std::string& task_id) const;
};

} // namespace mur
