#include "messages/vocabulary/trace_context.hpp"

#include "messages/vocabulary/sha256.hpp"

namespace mur {
namespace {

bool lower_hex(const std::string& s, std::size_t from, std::size_t n) {
  bool nonzero = false;
  for (std::size_t i = from; i < from + n; ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    nonzero = nonzero || c != '0';
  }
  return nonzero;
}

std::string span_of(const std::string& key) { return sha256_hex(key).substr(0, 16); }

} // namespace

std::optional<TraceContext> parse_traceparent(const std::string& h) {
  // 00-<32>-<16>-<2>: 55 characters, dashes at 2, 35 and 52.
  if (h.size() != 55 || h.compare(0, 3, "00-") != 0 || h[35] != '-' || h[52] != '-') return std::nullopt;
  if (!lower_hex(h, 3, 32) || !lower_hex(h, 36, 16)) return std::nullopt;
  const char f0 = h[53], f1 = h[54];
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  if (!hex(f0) || !hex(f1)) return std::nullopt;
  return TraceContext{h.substr(3, 32), h.substr(36, 16)};
}

std::string format_traceparent(const std::string& trace_id, const std::string& span_id) {
  return "00-" + trace_id + "-" + span_id + "-01";
}

std::string trace_id_of_task(const std::string& task_id) { return sha256_hex("trace:" + task_id).substr(0, 32); }
std::string task_span_id(const std::string& task_id) { return span_of("task:" + task_id); }
std::string call_span_id(const std::string& call_id) { return span_of("call:" + call_id); }
std::string chat_span_id(const std::string& task_id, long long turn, long long step) {
  return span_of("chat:" + task_id + "/" + std::to_string(turn) + "/" + std::to_string(step));
}
std::string tool_span_id(const std::string& task_id, const std::string& tool_call_id, long long turn) {
  return span_of("tool:" + task_id + "/" + std::to_string(turn) + "/" + tool_call_id);
}

} // namespace mur
