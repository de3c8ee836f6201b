#include "messages/vocabulary/otlp_protobuf.hpp"

#include <cstring>

namespace mur {
namespace {

// Protobuf wire types.
constexpr unsigned varint = 0, fixed64 = 1, length_delimited = 2;

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void put_tag(std::string& out, unsigned field, unsigned wire) { put_varint(out, (std::uint64_t{field} << 3) | wire); }

void put_bytes(std::string& out, unsigned field, const std::string& bytes) {
  put_tag(out, field, length_delimited);
  put_varint(out, bytes.size());
  out += bytes;
}

void put_fixed64(std::string& out, unsigned field, std::uint64_t v) {
  put_tag(out, field, fixed64);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff); // little-endian
}

// Hex to raw bytes ("" for anything that is not an even run of hex digits).
std::string raw_of_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) return {};
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string raw;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return {};
    raw += static_cast<char>(hi * 16 + lo);
  }
  return raw;
}

// common.v1.AnyValue: string_value 1, bool_value 2, int_value 3, double_value 4.
std::string any_value(const OtelValue& v) {
  std::string out;
  switch (v.kind) {
  case OtelValue::Kind::text: put_bytes(out, 1, v.text); break;
  case OtelValue::Kind::boolean:
    put_tag(out, 2, varint);
    put_varint(out, v.boolean ? 1 : 0);
    break;
  case OtelValue::Kind::integer:
    put_tag(out, 3, varint);
    put_varint(out, static_cast<std::uint64_t>(v.integer)); // int64: two's complement, 10 bytes when negative
    break;
  case OtelValue::Kind::real: {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v.real, sizeof bits);
    put_fixed64(out, 4, bits);
    break;
  }
  }
  return out;
}

// common.v1.KeyValue: key 1, value 2.
std::string key_value(const OtelAttribute& a) {
  std::string out;
  put_bytes(out, 1, a.key);
  put_bytes(out, 2, any_value(a.value));
  return out;
}

// trace.v1.Status: message 2, code 3 (STATUS_CODE_ERROR = 2).
std::string error_status(const std::string& message) {
  std::string out;
  if (!message.empty()) put_bytes(out, 2, message);
  put_tag(out, 3, varint);
  put_varint(out, 2);
  return out;
}

// trace.v1.Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8,
// attributes 9, status 15.
std::string span(const OtelSpan& s) {
  std::string out;
  put_bytes(out, 1, raw_of_hex(s.trace_id));
  put_bytes(out, 2, raw_of_hex(s.span_id));
  if (!s.parent_span_id.empty()) put_bytes(out, 4, raw_of_hex(s.parent_span_id));
  put_bytes(out, 5, s.name);
  put_tag(out, 6, varint);
  put_varint(out, static_cast<std::uint64_t>(s.kind));
  put_fixed64(out, 7, s.start_ns);
  put_fixed64(out, 8, s.end_ns);
  for (const auto& a : s.attributes) put_bytes(out, 9, key_value(a));
  if (s.error) put_bytes(out, 15, error_status(s.status_message));
  return out;
}

} // namespace

std::string encode_otlp_traces(const OtlpBatch& b) {
  std::string resource; // resource.v1.Resource: attributes 1
  for (const auto& a : b.resource) put_bytes(resource, 1, key_value(a));
  std::string scope; // common.v1.InstrumentationScope: name 1, version 2
  put_bytes(scope, 1, b.scope_name);
  if (!b.scope_version.empty()) put_bytes(scope, 2, b.scope_version);
  std::string scope_spans; // trace.v1.ScopeSpans: scope 1, spans 2
  put_bytes(scope_spans, 1, scope);
  for (const auto& s : b.spans) put_bytes(scope_spans, 2, span(s));
  std::string resource_spans; // trace.v1.ResourceSpans: resource 1, scope_spans 2
  put_bytes(resource_spans, 1, resource);
  put_bytes(resource_spans, 2, scope_spans);
  std::string request; // collector.trace.v1.ExportTraceServiceRequest: resource_spans 1
  put_bytes(request, 1, resource_spans);
  return request;
}

} // namespace mur
