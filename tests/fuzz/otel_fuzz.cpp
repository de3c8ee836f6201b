// libFuzzer target: what the OpenTelemetry export reads from outside — a traceparent (an A2A
// caller's message metadata), the OTEL_* variables (the operator's environment, here every
// variable given the input's text), and trace lines fed to the span builder, whose spans are
// then encoded. Invariant under test: no input crashes, leaks or trips UBSan; a traceparent that
// is accepted reads back the same after it is formatted; no warning quotes a header's value.
#include "messages/vocabulary/otel_settings.hpp"
#include "messages/vocabulary/otlp_protobuf.hpp"
#include "messages/vocabulary/span_builder.hpp"
#include "messages/vocabulary/trace_context.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mur;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (auto tc = parse_traceparent(text)) {
    auto again = parse_traceparent(format_traceparent(tc->trace_id, tc->span_id));
    if (!again || again->trace_id != tc->trace_id || again->span_id != tc->span_id) std::abort();
  }

  const OtelSettings s = read_otel_settings([&](const std::string& name) -> std::optional<std::string> {
    if (name == "OTEL_EXPORTER_OTLP_ENDPOINT") return "http://localhost:4318";
    if (name == "OTEL_SDK_DISABLED") return std::nullopt;
    return text;
  });
  if (text.size() >= 12)
    for (const auto& w : s.warnings)
      if (w.find(text) != std::string::npos && w.rfind("W-OTL-002: entry", 0) == 0) std::abort();

  SpanBuilder b;
  OtlpBatch batch;
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto nl = std::min(text.find('\n', at), text.size());
    for (auto& span : b.take(text.substr(at, nl - at))) batch.spans.push_back(std::move(span));
    at = nl + 1;
  }
  batch.resource = b.resource("mur");
  (void)encode_otlp_traces(batch);
  return 0;
}
