#include "launcher/traces/trace_usage.hpp"

#include "launcher/traces/trace_fields.hpp"

#include <algorithm>

namespace mur {
namespace {

using json = nlohmann::json;

std::int64_t count(const json& u, const char* key) {
  return std::clamp<std::int64_t>(trace_fields::num(u, key), 0, max_limit_value);
}

bool counted_field(const json& u, const char* key) {
  auto it = u.find(key);
  return it != u.end() && it->is_number_integer();
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

std::string tokens_words(const Usage& u) {
  if (!split_known(u)) return u.tokens > 0 ? counted(u.tokens, "token", "tokens") : "n/a tokens";
  std::string out = counted(u.tokens, "token", "tokens");
  if (u.model_requests == 0 && u.tokens == 0) return out;
  out += " (" + grouped(u.input_tokens) + " in + " + grouped(u.output_tokens) + " out";
  if (u.reasoning_reports > 0) out += ", " + grouped(u.reasoning_tokens) + " reasoning";
  return out + ")";
}

} // namespace

Usage usage_in(const json& u) {
  if (!u.is_object()) return {};
  Usage out{count(u, "tokens"), count(u, "model_requests"), count(u, "tool_calls"), count(u, "calls")};
  // A split written as numbers was reported by some server (or nothing was asked of one).
  if (counted_field(u, "input_tokens") && counted_field(u, "output_tokens")) {
    out.input_tokens = count(u, "input_tokens"), out.output_tokens = count(u, "output_tokens");
    out.token_reports = out.model_requests > 0 ? 1 : 0;
    if (counted_field(u, "reasoning_tokens"))
      out.reasoning_tokens = std::min(count(u, "reasoning_tokens"), out.output_tokens), out.reasoning_reports = out.token_reports;
  }
  return out;
}

Usage own_usage_of_task_end(const json& e) {
  if (!e.is_object()) return {};
  if (auto own = e.find("own_usage"); own != e.end()) return usage_in(*own);
  if (auto all = e.find("usage"); all != e.end()) return usage_in(*all);
  return {};
}

void add_usage(Usage& a, const Usage& b) { a += b; }

PricedUsage priced(const Usage& u, const std::optional<TokenPrice>& price) {
  return PricedUsage{u, price ? cost_at(u, *price) : std::nullopt};
}

void add_priced(PricedUsage& a, const PricedUsage& b) {
  a.usage += b.usage;
  if (b.cost) a.cost = a.cost.value_or(0.0) + *b.cost;
}

std::optional<TokenPrice> price_of_session(const std::vector<json>& events) {
  for (const auto& e : events)
    if (e.is_object() && trace_fields::str(e, "event_type") == "session_start") {
      auto it = e.find("price");
      return it == e.end() ? std::nullopt : price_in(*it);
    }
  return std::nullopt;
}

PricedUsage session_usage(const std::vector<json>& events) {
  Usage u;
  for (const auto& e : events)
    if (e.is_object() && trace_fields::str(e, "event_type") == "task_end") u += own_usage_of_task_end(e);
  return priced(u, price_of_session(events));
}

json usage_shape(const PricedUsage& p) {
  const Usage& u = p.usage;
  const bool split = split_known(u);
  auto known = [](bool k, std::int64_t n) { return k ? json(n) : json(nullptr); };
  return json{{"tokens", u.tokens},
              {"input_tokens", known(split, u.input_tokens)},
              {"output_tokens", known(split, u.output_tokens)},
              {"reasoning_tokens", known(split && reasoning_known(u), u.reasoning_tokens)},
              {"model_requests", u.model_requests},
              {"tool_calls", u.tool_calls},
              {"calls", u.calls},
              {"cost", p.cost ? json(rounded_cost(*p.cost)) : json(nullptr)}};
}

std::string usage_words(const PricedUsage& p) {
  const Usage& u = p.usage;
  std::string out = tokens_words(u) + " \xC2\xB7 " + counted(u.model_requests, "request", "requests") + " \xC2\xB7 " +
                    counted(u.tool_calls, "tool call", "tool calls") + " \xC2\xB7 " + counted(u.calls, "call", "calls");
  if (p.cost) out += " \xC2\xB7 cost " + cost_words(*p.cost);
  return out;
}

std::string usage_words(const Usage& u) { return usage_words(PricedUsage{u, std::nullopt}); }

} // namespace mur
