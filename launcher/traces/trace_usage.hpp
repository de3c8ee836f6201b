// trace_usage.hpp — what tasks spent, as their `task_end` events say, summed, priced and put in
// words and in the one usage shape every reader shows (docs/traces.md §Usage and cost).
//
// Invariant: reads a trace's usage fields ({tokens, model_requests, tool_calls, calls,
// input_tokens, output_tokens, reasoning_tokens}) without trusting them: a missing, mistyped or
// negative count reads as 0, a split (input/output/reasoning) that is null or absent reads as not
// reported, and sums saturate rather than overflow. A member's usage is the sum of its tasks'
// `own_usage` (their `usage` when no call was answered), so a formation's total, the sum over its
// members, counts every spending once. A cost is known only where a price is (session_start's
// `price`) and the tokens' split was reported; a sum of costs counts the known ones and is
// unknown only when none is. Unknown is null in JSON and `n/a` in words, never 0.
// Rule: usage per task, member and formation in `mur trace show`, `--json`, `mur ps` and
// `mur view` (docs/budgets.md §Seeing usage).
#pragma once

#include "messages/vocabulary/task_budget.hpp"
#include "messages/vocabulary/token_price.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mur {

// A usage and, where a price made it one, its cost (in the price's unit).
struct PricedUsage {
  Usage usage;
  std::optional<double> cost;
};

// A usage object of a trace event (`usage`, `own_usage`); null or absent reads as all 0.
Usage usage_in(const nlohmann::json& fields);
// What a task_end event adds to its member's usage: its own_usage, or its usage.
Usage own_usage_of_task_end(const nlohmann::json& task_end);
// `a += b`, saturating.
void add_usage(Usage& a, const Usage& b);
// `u` at `price` (no price: no cost).
PricedUsage priced(const Usage& u, const std::optional<TokenPrice>& price);
// `a += b`: the usages and the known costs.
void add_priced(PricedUsage& a, const PricedUsage& b);
// A session's price, as its session_start recorded it (none when absent or malformed).
std::optional<TokenPrice> price_of_session(const std::vector<nlohmann::json>& events);
// What a session's tasks spent themselves (their task_end events), at its price.
PricedUsage session_usage(const std::vector<nlohmann::json>& events);

// The usage shape: {tokens, input_tokens, output_tokens, reasoning_tokens, model_requests,
// tool_calls, calls, cost}; the split and cost null when unknown.
nlohmann::json usage_shape(const PricedUsage& u);

// "1,234 tokens (1,000 in + 234 out, 120 reasoning) · 3 requests · 2 tool calls · 1 call · cost 0.0021":
// "n/a tokens" when requests were made and no server reported their tokens; the parenthesis only
// when the split is known (reasoning only when reported); the cost only when known.
std::string usage_words(const PricedUsage& u);
std::string usage_words(const Usage& u);

} // namespace mur
