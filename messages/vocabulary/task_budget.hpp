// task_budget.hpp — what a task may spend (Budget) and what it and the tasks below it spent (Usage).
//
// Invariant: a limit of `none` (-1) bounds nothing; any other limit is a count from 0. A task's
// budget is the tightest of three: its capsule's manifest `limits`, the roster's `limits` (for a
// task no member sent), and what its caller had left when it called (message metadata). Usage
// counts a task's own spending plus what each callee's answer reported (charged on arrival), so
// the root task's budget bounds its whole tree. Calls out at the same time each carry what was
// left when they were sent.
// Rule: budgets flow down — a call carries what is left, a callee's usage comes back with its
// answer and is charged to the caller; exhausting one ends the task `budget_exhausted`, naming
// the limit and the use (docs/budgets.md).
#pragma once

#include "messages/vocabulary/message_fields.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace mur {

inline constexpr std::int64_t no_limit = -1;
inline constexpr std::int64_t max_limit_value = 1'000'000'000'000LL; // the largest limit a file or call may name

// Counts saturate at max_limit_value: a model server's count is clamped to it (reported_tokens),
// and sums stop there.
struct Usage {
  std::int64_t tokens = 0;          // prompt + completion, as the model server reported them
  std::int64_t model_requests = 0;
  std::int64_t tool_calls = 0;      // calls of the capsule's own tools
  std::int64_t calls = 0;           // member calls and delegations sent
  // The split of `tokens`, as far as servers reported it (docs/traces.md §Usage): a request
  // whose server reported no counts adds to none of these, nor to token_reports.
  std::int64_t input_tokens = 0;      // prompt tokens
  std::int64_t output_tokens = 0;     // completion tokens (their reasoning tokens included)
  std::int64_t reasoning_tokens = 0;  // of output_tokens, the reasoning ones
  std::int64_t token_reports = 0;     // model requests whose server reported token counts
  std::int64_t reasoning_reports = 0; // of those, the ones that reported reasoning tokens
  MUR_FIELDS(tokens, model_requests, tool_calls, calls, input_tokens, output_tokens, reasoning_tokens, token_reports,
             reasoning_reports)
  Usage& operator+=(const Usage& o); // saturating at max_limit_value
  bool is_zero() const;
};

// A token count as a model server reported it: -1 (not reported) and negatives are 0, and
// anything above max_limit_value is max_limit_value.
std::int64_t reported_tokens(std::int64_t n);
// What one model response spent in tokens, as its server reported them (-1: not reported):
// counted in token_reports only when both prompt and completion counts came, in
// reasoning_reports only when reasoning did too.
Usage response_tokens(std::int64_t prompt, std::int64_t completion, std::int64_t reasoning);

struct Budget {
  std::int64_t max_tokens = no_limit;
  std::int64_t max_model_requests = no_limit;
  std::int64_t max_tool_calls = no_limit;
  std::int64_t max_calls = no_limit;
  MUR_FIELDS(max_tokens, max_model_requests, max_tool_calls, max_calls)
  bool bounds_nothing() const;
};

// The four spendings, each with its limit's name (`max_tokens`, …).
enum class Spend : std::uint8_t { tokens, model_requests, tool_calls, calls };
const char* limit_name(Spend s);
std::int64_t& limit_of(Budget& b, Spend s);
std::int64_t limit_of(const Budget& b, Spend s);
std::int64_t used_of(const Usage& u, Spend s);

// Each limit the tighter of the two.
Budget tighter(const Budget& a, const Budget& b);
// What is left of `b` after `used` (never below 0; `none` stays `none`).
Budget left_after(const Budget& b, const Usage& used);

// A limit reached: which, its value, the use that reached it.
struct LimitHit {
  Spend spend = Spend::tokens;
  std::int64_t limit = 0;
  std::int64_t used = 0;
};

// Before a model request: no tokens or requests left (a request's tokens are known only after
// it answers, so the request that crosses max_tokens is the last).
std::optional<LimitHit> spent_before_request(const Budget& b, const Usage& used);
// Before `n` more of `s`: they would pass the limit.
std::optional<LimitHit> would_pass(const Budget& b, const Usage& used, Spend s, std::int64_t n = 1);

// Where a task's budget comes from: its limit for each spending is the tightest of the three.
struct BudgetSources {
  Budget own;       // the capsule's manifest `limits`
  Budget formation; // the roster's `limits` (a task no member sent)
  Budget caller;    // what the caller had left (message metadata)
  Budget effective() const { return tighter(tighter(own, formation), caller); }
  // Whose limit `s` is: "the capsule's", "the formation's" or "the caller's remaining".
  std::string source_of(Spend s) const;
};

// A `limits` section's spending limits (murmur.yaml's, roster.yaml's): the four of Budget and
// max_wall_secs (0: none; 1 s to 7 days), which becomes a task's deadline.
inline constexpr std::int64_t max_wall_secs_limit = 7 * 86'400;
struct SpendLimits {
  Budget budget;
  std::int64_t max_wall_secs = 0;
  bool bounds_nothing() const { return budget.bounds_nothing() && max_wall_secs == 0; }
};

// The limits a member's tasks start with: the capsule's manifest `limits` and, for a task no
// member sent, the roster's `limits`; max_depth (0: none) narrows the roster's for calls it makes.
struct TaskLimits {
  SpendLimits own;
  SpendLimits formation;
  int own_max_depth = 0;
};

// "budget exhausted: max_model_requests (3, the caller's remaining) reached, 3 used" — the words
// the task's status and its callers read.
std::string exhausted_text(const LimitHit& hit, const BudgetSources& sources);

} // namespace mur
