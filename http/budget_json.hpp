// budget_json.hpp — the budget extension on the A2A wire: what a call may still spend and what a task spent.
//
// Invariant: `message.metadata.murmur.budget` holds only the limits that bound something, each a
// whole number from 0 to 10^12, under exactly the names maxTokens, maxModelRequests, maxToolCalls,
// maxCalls; anything else is refused with the sentence read_budget returns (the door answers it
// as invalid params, so a caller learns its mistake). A task's `metadata.murmur.usage` {tokens,
// modelRequests, toolCalls, calls} (and, once a server reported tokens, their split inputTokens,
// outputTokens, reasoningTokens, with tokenReports and reasoningReports) is written once the task
// has spent something and read
// leniently: a count that is not a whole number from 0 to 10^12 reads as 0 (an answer is never
// lost to its usage).
// Rule: a call carries what is left and its callee's usage comes back with the answer (docs/budgets.md).
#pragma once

#include "messages/vocabulary/task_budget.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mur {

nlohmann::json budget_json(const Budget& b);
// Reads `j` into `b`; on a bad shape returns the reason ("message.metadata.murmur.budget …").
std::optional<std::string> read_budget(const nlohmann::json& j, Budget& b);

nlohmann::json usage_json(const Usage& u);
Usage read_usage(const nlohmann::json& j);

} // namespace mur
