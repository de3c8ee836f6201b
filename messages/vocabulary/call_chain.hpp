// call_chain.hpp — the members above a call, and the rule that keeps calls from looping.
//
// Invariant: a chain names the members whose tasks wait on this one, the root's first and the
// direct caller's last; its length is the depth of the task it reaches (a task the operator
// started: 0, its callee's: 1). A call is judged before anything is sent: to a member already on
// the chain (or to the caller itself) it is a cycle, refused unless the roster sets
// `allow_cycles: true`; a call whose callee would be deeper than `max_depth` is refused always.
// A chain never holds more than max_chain_length names (the door refuses a longer one).
// Rule: no loops — every call carries its chain; a call to a member on it is refused before
// anything is sent (docs/roster.md §Cycles and depth).
#pragma once

#include <string>
#include <vector>

namespace mur {

inline constexpr int default_max_depth = 8;
inline constexpr int max_chain_length = 64;
// The longest deadline a call may carry (7 days, as delegation_deadline_secs).
inline constexpr long long max_deadline_ms = 7LL * 86'400'000;

struct ChainRule {
  bool allow_cycles = false;       // roster.yaml `allow_cycles`
  int max_depth = default_max_depth; // roster.yaml `limits.max_depth` (1–64)
};

enum class ChainVerdict { ok, cycle, depth };

// How a call from `self` (whose task has `above` over it) to `callee` is judged.
ChainVerdict judge_call(const ChainRule& rule, const std::vector<std::string>& above, const std::string& self,
                        const std::string& callee);

// The chain a call from `self` carries: `above` and then `self`.
std::vector<std::string> chain_below(std::vector<std::string> above, const std::string& self);

// "lead → worker → lead": the chain with the callee at its end, as texts name it.
std::string chain_words(const std::vector<std::string>& chain, const std::string& callee);

} // namespace mur
