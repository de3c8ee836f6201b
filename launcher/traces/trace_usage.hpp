// trace_usage.hpp — what tasks spent, as their `task_end` events say, summed and put in words.
//
// Invariant: reads a trace's usage fields ({tokens, model_requests, tool_calls, calls}) without
// trusting them: a missing, mistyped or negative count reads as 0, and sums saturate rather than
// overflow. A member's usage is the sum of its tasks' `own_usage` (their `usage` when no call
// was answered), so a formation's total, the sum over its members, counts every spending once.
// Rule: usage per task, member and formation in `mur trace show`, `--json` and `mur ps`
// (docs/budgets.md §Seeing usage).
#pragma once

#include "messages/vocabulary/task_budget.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace mur {

// A usage object of a trace event (`usage`, `own_usage`); null or absent reads as all 0.
Usage usage_in(const nlohmann::json& fields);
// What a task_end event adds to its member's usage: its own_usage, or its usage.
Usage own_usage_of_task_end(const nlohmann::json& task_end);
// `a += b`, saturating.
void add_usage(Usage& a, const Usage& b);
// "1,234 tokens · 3 requests · 2 tool calls · 1 call". (Written as JSON with usage_fields,
// actors/task_trace_fields.hpp: the names the trace itself uses.)
std::string usage_words(const Usage& u);

} // namespace mur
