// task_trace_fields.hpp — the fields of a task's `inference`, `member_call` and `delegation`
// trace events, and the budget and usage fields of its `task_start` and `task_end` (docs/traces.md).
//
// Invariant: a field is written only when it is known (a script model's turn has no model
// name, no token counts); texts are already cut by the caller; no token, URL or port is ever a
// field.
// Rule: every model request and every call is traced with its outcome (docs/traces.md).
#pragma once

#include "actors/call_round.hpp"
#include "messages/vocabulary/task_budget.hpp"
#include "messages/wire/model_turn.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mur {

nlohmann::json inference_fields(const std::string& task_id, int turn, int step, const ModelTurn& t);

// `since_call_ms`: how long ago the call was made (the event is written when its outcome is
// delivered or abandoned, which may be well after it ended). `task_text` is the call's, cut.
nlohmann::json call_fields(const std::string& task_id, const RoundCall& c, const std::string& task_text,
                           const std::string& status, std::int64_t duration_ms, std::int64_t since_call_ms,
                           const std::string& output, bool truncated, bool delivered);

// The limits that bound something, by their names (`max_tokens`, …).
nlohmann::json budget_fields(const Budget& b);
// {tokens, model_requests, tool_calls, calls, input_tokens, output_tokens, reasoning_tokens}: the
// split null when no model server reported it (reasoning_tokens: when none reported reasoning).
nlohmann::json usage_fields(const Usage& u);
// task_end's `usage` (the task and every task below it that answered), `own_usage` (its own, when
// it called anyone) and `budget` (its limits, when any bounds something).
void add_usage_fields(nlohmann::json& end, const Usage& own, const Usage& total, const Budget& budget);

} // namespace mur
