#include "launcher/traces/trace_usage.hpp"

#include "launcher/traces/trace_fields.hpp"

#include <limits>

namespace mur {
namespace {

std::int64_t count(const nlohmann::json& u, const char* key) {
  return std::max<std::int64_t>(0, trace_fields::num(u, key));
}

std::int64_t sum(std::int64_t a, std::int64_t b) {
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max() : a + b;
}

// 1234567 → "1,234,567".
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string counted(std::int64_t n, const char* one, const char* many) { return grouped(n) + " " + (n == 1 ? one : many); }

} // namespace

Usage usage_in(const nlohmann::json& u) {
  if (!u.is_object()) return {};
  return Usage{count(u, "tokens"), count(u, "model_requests"), count(u, "tool_calls"), count(u, "calls")};
}

Usage own_usage_of_task_end(const nlohmann::json& e) {
  if (!e.is_object()) return {};
  if (auto own = e.find("own_usage"); own != e.end()) return usage_in(*own);
  if (auto all = e.find("usage"); all != e.end()) return usage_in(*all);
  return {};
}

void add_usage(Usage& a, const Usage& b) {
  a.tokens = sum(a.tokens, b.tokens);
  a.model_requests = sum(a.model_requests, b.model_requests);
  a.tool_calls = sum(a.tool_calls, b.tool_calls);
  a.calls = sum(a.calls, b.calls);
}

std::string usage_words(const Usage& u) {
  return counted(u.tokens, "token", "tokens") + " \xC2\xB7 " + counted(u.model_requests, "request", "requests") +
         " \xC2\xB7 " + counted(u.tool_calls, "tool call", "tool calls") + " \xC2\xB7 " + counted(u.calls, "call", "calls");
}

} // namespace mur
