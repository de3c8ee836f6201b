// The OTLP/HTTP protobuf body, byte for byte on a small span (field numbers of opentelemetry-proto).
#include "messages/vocabulary/otlp_protobuf.hpp"

#include <catch2/catch.hpp>

#include <cstdio>

namespace {

std::string hex(const std::string& bytes) {
  std::string out;
  char b[3];
  for (unsigned char c : bytes) {
    std::snprintf(b, sizeof b, "%02x", c);
    out += b;
  }
  return out;
}

} // namespace

TEST_CASE("an export request with one span is encoded byte for byte", "[otel][otlp]") {
  mur::OtlpBatch b;
  b.resource = {mur::otel_attr("service.name", "s")};
  b.scope_name = "mur";
  mur::OtelSpan s;
  s.trace_id = "0102030405060708090a0b0c0d0e0f10";
  s.span_id = "a1a2a3a4a5a6a7a8";
  s.name = "n";
  s.kind = mur::OtelSpanKind::client;
  s.start_ns = 1;
  s.end_ns = 2;
  s.attributes = {mur::otel_attr("k", std::int64_t{5})};
  s.error = true;
  s.status_message = "x";
  b.spans = {s};
  const std::string span = "0a10" "0102030405060708090a0b0c0d0e0f10" // trace_id (1, bytes)
                           "1208" "a1a2a3a4a5a6a7a8"                 // span_id (2); no parent_span_id (4)
                           "2a01" "6e"                               // name (5) "n"
                           "3003"                                    // kind (6) CLIENT
                           "39" "0100000000000000"                   // start_time_unix_nano (7, fixed64)
                           "41" "0200000000000000"                   // end_time_unix_nano (8, fixed64)
                           "4a07" "0a016b" "1202" "1805"             // attributes (9): key "k", int_value (3) 5
                           "7a05" "120178" "1802";                   // status (15): message (2) "x", code (3) ERROR
  const std::string scope_spans = "0a05" "0a036d7572" // scope (1): name (1) "mur"
                                  "1243" + span;      // spans (2), 67 bytes
  const std::string resource = "0a13" "0a0c" "736572766963652e6e616d65" "1203" "0a0173"; // attributes (1): service.name = "s"
  const std::string resource_spans = "0a15" + resource + "124c" + scope_spans;
  CHECK(hex(mur::encode_otlp_traces(b)) == "0a65" + resource_spans);
}

TEST_CASE("attribute values: a negative int, a bool, a parent span and no status", "[otel][otlp]") {
  mur::OtlpBatch b;
  b.scope_name = "m";
  mur::OtelSpan s;
  s.trace_id = "00000000000000000000000000000001";
  s.span_id = "0000000000000002";
  s.parent_span_id = "0000000000000003";
  s.name = "";
  s.kind = mur::OtelSpanKind::internal;
  s.attributes = {mur::otel_attr("i", std::int64_t{-1}), mur::otel_attr("b", true)};
  b.spans = {s};
  const std::string body = hex(mur::encode_otlp_traces(b));
  // parent_span_id (4) is there, and the int64 -1 is ten bytes of varint.
  CHECK(body.find("2208" "0000000000000003") != std::string::npos);
  CHECK(body.find("0a0169" "120b" "18ffffffffffffffffff01") != std::string::npos);
  // The bool attribute ends the span: no status field (15) follows it.
  const std::string last = "0a0162" "1202" "1001";
  CHECK(body.compare(body.size() - last.size(), last.size(), last) == 0);
}
