// otel_span.hpp — one finished span as mur exports it over OTLP: ids as lowercase hex, times in
// Unix nanoseconds, attributes of the four scalar kinds OTLP carries.
//
// Invariant: a span holds only ids, names, counts and statuses — never the text of a task, an
// answer, a prompt or a tool's arguments (they may be secret: docs/observability.md §What is never
// exported). An attribute key appears at most once per span.
// Rule: spans follow the OpenTelemetry GenAI conventions (docs/observability.md §Attributes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct OtelValue {
  enum class Kind : std::uint8_t { text, integer, boolean, real } kind = Kind::text;
  std::string text;
  std::int64_t integer = 0;
  bool boolean = false;
  double real = 0;
};

struct OtelAttribute {
  std::string key;
  OtelValue value;
};

inline OtelAttribute otel_attr(std::string key, std::string v) {
  OtelValue x;
  x.text = std::move(v);
  return {std::move(key), std::move(x)};
}
inline OtelAttribute otel_attr(std::string key, const char* v) { return otel_attr(std::move(key), std::string(v)); }
inline OtelAttribute otel_attr(std::string key, std::int64_t v) {
  OtelValue x;
  x.kind = OtelValue::Kind::integer;
  x.integer = v;
  return {std::move(key), std::move(x)};
}
inline OtelAttribute otel_attr(std::string key, bool v) {
  OtelValue x;
  x.kind = OtelValue::Kind::boolean;
  x.boolean = v;
  return {std::move(key), std::move(x)};
}

// The OTLP SpanKind values (trace.proto).
enum class OtelSpanKind : std::uint8_t { internal = 1, server = 2, client = 3 };

struct OtelSpan {
  std::string trace_id;       // 32 hex
  std::string span_id;        // 16 hex
  std::string parent_span_id; // 16 hex, or "" for a root span
  std::string name;
  OtelSpanKind kind = OtelSpanKind::internal;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::vector<OtelAttribute> attributes;
  bool error = false;         // status ERROR (else unset)
  std::string status_message; // with error: a status word, never a model's or program's text
};

} // namespace mur
