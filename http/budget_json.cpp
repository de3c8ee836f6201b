#include "http/budget_json.hpp"

namespace mur {
namespace {

struct WireName {
  Spend spend;
  const char* limit; // in budget
  const char* used;  // in usage
};

constexpr WireName names[] = {{Spend::tokens, "maxTokens", "tokens"},
                              {Spend::model_requests, "maxModelRequests", "modelRequests"},
                              {Spend::tool_calls, "maxToolCalls", "toolCalls"},
                              {Spend::calls, "maxCalls", "calls"}};

bool is_count(const nlohmann::json& v) {
  return v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= max_limit_value;
}

std::int64_t& used_ref(Usage& u, Spend s) {
  switch (s) {
  case Spend::tokens: return u.tokens;
  case Spend::model_requests: return u.model_requests;
  case Spend::tool_calls: return u.tool_calls;
  case Spend::calls: return u.calls;
  }
  return u.tokens;
}

} // namespace

nlohmann::json budget_json(const Budget& b) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& n : names)
    if (limit_of(b, n.spend) != no_limit) j[n.limit] = limit_of(b, n.spend);
  return j;
}

std::optional<std::string> read_budget(const nlohmann::json& j, Budget& b) {
  const std::string shape = "message.metadata.murmur.budget must be an object of maxTokens, maxModelRequests, "
                            "maxToolCalls and maxCalls, each a whole number from 0 to 1000000000000";
  if (!j.is_object()) return shape;
  Budget read;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const WireName* n = nullptr;
    for (const auto& w : names)
      if (it.key() == w.limit) n = &w;
    if (n == nullptr || !is_count(it.value())) return shape;
    limit_of(read, n->spend) = it.value().get<std::int64_t>();
  }
  b = read;
  return std::nullopt;
}

namespace {

// The split of `tokens`, sent only when some model server reported it (docs/budgets.md).
struct SplitName {
  std::int64_t Usage::*field;
  const char* wire;
};
constexpr SplitName split_names[] = {{&Usage::input_tokens, "inputTokens"}, {&Usage::output_tokens, "outputTokens"},
                                     {&Usage::reasoning_tokens, "reasoningTokens"},
                                     {&Usage::token_reports, "tokenReports"},
                                     {&Usage::reasoning_reports, "reasoningReports"}};

} // namespace

nlohmann::json usage_json(const Usage& u) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& n : names) j[n.used] = used_of(u, n.spend);
  if (u.token_reports > 0)
    for (const auto& n : split_names) j[n.wire] = u.*n.field;
  return j;
}

Usage read_usage(const nlohmann::json& j) {
  Usage u;
  if (!j.is_object()) return u;
  for (const auto& n : names)
    if (auto it = j.find(n.used); it != j.end() && is_count(*it)) used_ref(u, n.spend) = it->get<std::int64_t>();
  for (const auto& n : split_names)
    if (auto it = j.find(n.wire); it != j.end() && is_count(*it)) u.*n.field = it->get<std::int64_t>();
  if (u.token_reports == 0) u.input_tokens = u.output_tokens = u.reasoning_tokens = u.reasoning_reports = 0;
  if (u.reasoning_reports == 0) u.reasoning_tokens = 0;
  return u;
}

} // namespace mur
