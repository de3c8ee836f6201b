#include "messages/vocabulary/task_budget.hpp"

#include <algorithm>

namespace mur {

namespace {

// a + b, both counts from 0, never past max_limit_value.
std::int64_t capped_sum(std::int64_t a, std::int64_t b) {
  a = std::clamp<std::int64_t>(a, 0, max_limit_value);
  b = std::clamp<std::int64_t>(b, 0, max_limit_value);
  return std::min(a + b, max_limit_value);
}

} // namespace

std::int64_t reported_tokens(std::int64_t n) { return std::clamp<std::int64_t>(n, 0, max_limit_value); }

Usage response_tokens(std::int64_t prompt, std::int64_t completion, std::int64_t reasoning) {
  Usage u;
  u.tokens = capped_sum(reported_tokens(prompt), reported_tokens(completion));
  if (prompt < 0 || completion < 0) return u;
  u.input_tokens = reported_tokens(prompt);
  u.output_tokens = reported_tokens(completion);
  u.token_reports = 1;
  if (reasoning >= 0) u.reasoning_tokens = std::min(reported_tokens(reasoning), u.output_tokens), u.reasoning_reports = 1;
  return u;
}

Usage& Usage::operator+=(const Usage& o) {
  tokens = capped_sum(tokens, o.tokens);
  model_requests = capped_sum(model_requests, o.model_requests);
  tool_calls = capped_sum(tool_calls, o.tool_calls);
  calls = capped_sum(calls, o.calls);
  input_tokens = capped_sum(input_tokens, o.input_tokens);
  output_tokens = capped_sum(output_tokens, o.output_tokens);
  reasoning_tokens = capped_sum(reasoning_tokens, o.reasoning_tokens);
  token_reports = capped_sum(token_reports, o.token_reports);
  reasoning_reports = capped_sum(reasoning_reports, o.reasoning_reports);
  return *this;
}

bool Usage::is_zero() const {
  return tokens == 0 && model_requests == 0 && tool_calls == 0 && calls == 0 && token_reports == 0;
}

bool Budget::bounds_nothing() const {
  return max_tokens == no_limit && max_model_requests == no_limit && max_tool_calls == no_limit && max_calls == no_limit;
}

const char* limit_name(Spend s) {
  switch (s) {
  case Spend::tokens: return "max_tokens";
  case Spend::model_requests: return "max_model_requests";
  case Spend::tool_calls: return "max_tool_calls";
  case Spend::calls: return "max_calls";
  }
  return "max_tokens";
}

std::int64_t& limit_of(Budget& b, Spend s) {
  switch (s) {
  case Spend::tokens: return b.max_tokens;
  case Spend::model_requests: return b.max_model_requests;
  case Spend::tool_calls: return b.max_tool_calls;
  case Spend::calls: return b.max_calls;
  }
  return b.max_tokens;
}

std::int64_t limit_of(const Budget& b, Spend s) { return limit_of(const_cast<Budget&>(b), s); }

std::int64_t used_of(const Usage& u, Spend s) {
  switch (s) {
  case Spend::tokens: return u.tokens;
  case Spend::model_requests: return u.model_requests;
  case Spend::tool_calls: return u.tool_calls;
  case Spend::calls: return u.calls;
  }
  return 0;
}

namespace {

constexpr Spend every_spend[] = {Spend::tokens, Spend::model_requests, Spend::tool_calls, Spend::calls};

std::int64_t tighter_limit(std::int64_t a, std::int64_t b) {
  if (a == no_limit) return b;
  if (b == no_limit) return a;
  return std::min(a, b);
}

} // namespace

Budget tighter(const Budget& a, const Budget& b) {
  Budget out;
  for (Spend s : every_spend) limit_of(out, s) = tighter_limit(limit_of(a, s), limit_of(b, s));
  return out;
}

Budget left_after(const Budget& b, const Usage& used) {
  Budget out = b;
  for (Spend s : every_spend)
    if (limit_of(b, s) != no_limit) limit_of(out, s) = std::max<std::int64_t>(0, limit_of(b, s) - used_of(used, s));
  return out;
}

std::optional<LimitHit> would_pass(const Budget& b, const Usage& used, Spend s, std::int64_t n) {
  const std::int64_t limit = limit_of(b, s);
  if (limit == no_limit || used_of(used, s) + n <= limit) return std::nullopt;
  return LimitHit{s, limit, used_of(used, s)};
}

std::optional<LimitHit> spent_before_request(const Budget& b, const Usage& used) {
  if (b.max_tokens != no_limit && used.tokens >= b.max_tokens) return LimitHit{Spend::tokens, b.max_tokens, used.tokens};
  return would_pass(b, used, Spend::model_requests);
}

std::string BudgetSources::source_of(Spend s) const {
  const std::int64_t limit = limit_of(effective(), s);
  if (limit_of(caller, s) == limit) return "the caller's remaining";
  if (limit_of(formation, s) == limit) return "the formation's";
  return "the capsule's";
}

std::string exhausted_text(const LimitHit& hit, const BudgetSources& sources) {
  return std::string("budget exhausted: ") + limit_name(hit.spend) + " (" + std::to_string(hit.limit) + ", " +
         sources.source_of(hit.spend) + ") reached, " + std::to_string(hit.used) + " used";
}

} // namespace mur
