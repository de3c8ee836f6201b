// limits_section.hpp — the spending limits of a `limits:` section, in murmur.yaml and roster.yaml.
//
// Invariant: reads only max_tokens, max_model_requests, max_tool_calls, max_calls (whole numbers
// from 0 to 10^12) and max_wall_secs (1 to 604800); which other keys a section may hold is its
// file's own expect_map. A value of the wrong type or out of range is refused with the file's
// code, its path and a Fix.
// Rule: limits per task in the manifest, for the whole formation in roster.yaml (docs/budgets.md).
#pragma once

#include "capsule/yaml_reader.hpp"
#include "messages/vocabulary/task_budget.hpp"

namespace mur {

// The keys read_spend_limits reads, for a section's expect_map beside its own.
#define MUR_SPEND_LIMIT_KEYS "max_tokens", "max_model_requests", "max_tool_calls", "max_calls", "max_wall_secs"

SpendLimits read_spend_limits(const yaml::Value& section);

} // namespace mur
