// otlp_protobuf.hpp — an OTLP/HTTP trace export body: ExportTraceServiceRequest in the protobuf
// binary encoding (Content-Type application/x-protobuf), written by hand for exactly the messages
// mur sends: one ResourceSpans with its Resource, one ScopeSpans with its scope, the spans with
// their attributes and status. No links, no events.
//
// Invariant: the bytes are what protoc's generated code would decode field for field with the
// field numbers of opentelemetry-proto (trace/v1/trace.proto, common/v1/common.proto,
// resource/v1/resource.proto, collector/trace/v1/trace_service.proto); ids given as hex become
// their raw bytes (16 for a trace, 8 for a span), an empty parent is left out.
// Rule: spans leave mur over OTLP/HTTP protobuf, the protocol's default (docs/observability.md).
#pragma once

#include "messages/vocabulary/otel_span.hpp"

#include <string>
#include <vector>

namespace mur {

struct OtlpBatch {
  std::vector<OtelAttribute> resource; // service.name, service.instance.id, …
  std::string scope_name;              // the instrumentation scope: "mur"
  std::string scope_version;
  std::vector<OtelSpan> spans;
};

// The serialized ExportTraceServiceRequest.
std::string encode_otlp_traces(const OtlpBatch& batch);

} // namespace mur
