// Budgets flow down (messages/vocabulary/task_budget): the tighter of two budgets, what is left
// after a use, when a spending would pass its limit, whose limit it was, and the words a task
// ends with when one is reached.
#include "messages/vocabulary/task_budget.hpp"

#include <catch2/catch.hpp>

#include "budget_values.hpp"

using namespace mur;

namespace {


void check_hit(const std::optional<LimitHit>& hit, Spend spend, std::int64_t limit, std::int64_t used) {
  REQUIRE(hit);
  CHECK(hit->spend == spend);
  CHECK(hit->limit == limit);
  CHECK(hit->used == used);
}

const std::int64_t none = no_limit;

} // namespace

TEST_CASE("budget vocabulary: names, defaults, sums", "[budget]") {
  CHECK(no_limit == -1);
  CHECK(max_limit_value == 1000000000000LL);
  CHECK(max_wall_secs_limit == 604800);
  CHECK(std::string(limit_name(Spend::tokens)) == "max_tokens");
  CHECK(std::string(limit_name(Spend::model_requests)) == "max_model_requests");
  CHECK(std::string(limit_name(Spend::tool_calls)) == "max_tool_calls");
  CHECK(std::string(limit_name(Spend::calls)) == "max_calls");

  const Budget open;
  check_budget(open, none, none, none, none);
  CHECK(open.bounds_nothing());
  CHECK_FALSE(budget(none, none, none, 0).bounds_nothing()); // a limit of 0 bounds something
  CHECK_FALSE(budget(7, none, none, none).bounds_nothing());

  SpendLimits limits;
  CHECK(limits.bounds_nothing());
  limits.max_wall_secs = 30;
  CHECK_FALSE(limits.bounds_nothing());

  Budget b = budget(1, 2, 3, 4);
  CHECK(limit_of(b, Spend::tokens) == 1);
  CHECK(limit_of(b, Spend::model_requests) == 2);
  CHECK(limit_of(b, Spend::tool_calls) == 3);
  CHECK(limit_of(b, Spend::calls) == 4);
  limit_of(b, Spend::tool_calls) = 9;
  CHECK(b.max_tool_calls == 9);
  const Usage u = usage(10, 20, 30, 40);
  CHECK(used_of(u, Spend::tokens) == 10);
  CHECK(used_of(u, Spend::model_requests) == 20);
  CHECK(used_of(u, Spend::tool_calls) == 30);
  CHECK(used_of(u, Spend::calls) == 40);

  Usage sum;
  CHECK(sum.is_zero());
  sum += u;
  sum += usage(1, 0, 0, 2);
  CHECK(sum.tokens == 11);
  CHECK(sum.model_requests == 20);
  CHECK(sum.tool_calls == 30);
  CHECK(sum.calls == 42);
  CHECK_FALSE(sum.is_zero());
  CHECK_FALSE(usage(0, 0, 0, 1).is_zero());
}

TEST_CASE("tighter: none yields to a value, two values give the smaller", "[budget]") {
  const Budget a = budget(none, 5, 3, none);
  const Budget b = budget(100, none, 7, none);
  check_budget(tighter(a, b), 100, 5, 3, none);
  check_budget(tighter(b, a), 100, 5, 3, none);
  // 0 is a limit, not "none": it wins over none and over any value.
  check_budget(tighter(budget(0, none, 0, 8), budget(none, 0, 4, 0)), 0, 0, 0, 0);
  check_budget(tighter(Budget{}, Budget{}), none, none, none, none);
  check_budget(tighter(Budget{}, budget(1, 2, 3, 4)), 1, 2, 3, 4);
  check_budget(tighter(budget(10, 20, 30, 40), budget(11, 19, 30, 41)), 10, 19, 30, 40);
}

TEST_CASE("left_after: what is left, never below 0, none stays none", "[budget]") {
  check_budget(left_after(budget(100, 5, 3, none), usage(30, 7, 3, 99)), 70, 0, 0, none);
  check_budget(left_after(budget(100, 5, 3, 2), Usage{}), 100, 5, 3, 2);
  check_budget(left_after(Budget{}, usage(1000, 1000, 1000, 1000)), none, none, none, none);
  check_budget(left_after(budget(0, 1, none, 10), usage(5, 1, 4, 9)), 0, 0, none, 1);
  // What is left bounds something even when nothing is left of it.
  CHECK_FALSE(left_after(budget(none, none, none, 1), usage(0, 0, 0, 5)).bounds_nothing());
}

TEST_CASE("would_pass: used + n up to the limit passes, beyond it is a hit", "[budget]") {
  const Budget b = budget(none, none, 4, 2);
  CHECK_FALSE(would_pass(b, usage(0, 0, 0, 1), Spend::calls));       // 1 + 1 == 2: exactly at the limit
  CHECK_FALSE(would_pass(b, usage(0, 0, 0, 0), Spend::calls, 2));    // 0 + 2 == 2
  check_hit(would_pass(b, usage(0, 0, 0, 1), Spend::calls, 2), Spend::calls, 2, 1); // 1 + 2 > 2
  check_hit(would_pass(b, usage(0, 0, 0, 2), Spend::calls), Spend::calls, 2, 2);    // 2 + 1 > 2
  check_hit(would_pass(b, usage(0, 0, 0, 7), Spend::calls), Spend::calls, 2, 7);    // already beyond
  CHECK_FALSE(would_pass(b, usage(0, 0, 3, 9), Spend::tool_calls));
  check_hit(would_pass(b, usage(0, 0, 4, 0), Spend::tool_calls), Spend::tool_calls, 4, 4);
  // none bounds nothing, however much was used.
  CHECK_FALSE(would_pass(b, usage(max_limit_value, max_limit_value, 0, 0), Spend::tokens, 1000));
  CHECK_FALSE(would_pass(b, usage(0, max_limit_value, 0, 0), Spend::model_requests));
  // A limit of 0: nothing may be spent, but spending nothing passes.
  const Budget zero = budget(none, none, 0, none);
  check_hit(would_pass(zero, Usage{}, Spend::tool_calls), Spend::tool_calls, 0, 0);
  CHECK_FALSE(would_pass(zero, Usage{}, Spend::tool_calls, 0));
}

TEST_CASE("spent_before_request: tokens at their limit end it even with requests left", "[budget]") {
  const Budget b = budget(100, 10, none, none);
  CHECK_FALSE(spent_before_request(b, usage(99, 1, 0, 0)));
  check_hit(spent_before_request(b, usage(100, 1, 0, 0)), Spend::tokens, 100, 100); // tokens >= max_tokens
  check_hit(spent_before_request(b, usage(150, 0, 0, 0)), Spend::tokens, 100, 150); // the crossing request was the last
  // Requests: the next would pass max_model_requests.
  const Budget r = budget(none, 3, none, none);
  CHECK_FALSE(spent_before_request(r, usage(1000000, 2, 0, 0)));
  check_hit(spent_before_request(r, usage(0, 3, 0, 0)), Spend::model_requests, 3, 3);
  // Both spent: tokens are named.
  check_hit(spent_before_request(budget(5, 3, none, none), usage(5, 3, 0, 0)), Spend::tokens, 5, 5);
  // No tokens at all: not even the first request.
  check_hit(spent_before_request(budget(0, none, none, none), Usage{}), Spend::tokens, 0, 0);
  check_hit(spent_before_request(budget(none, 0, none, none), Usage{}), Spend::model_requests, 0, 0);
  // Tool calls and calls are not a model request's business.
  CHECK_FALSE(spent_before_request(budget(none, none, 0, 0), usage(0, 0, 9, 9)));
  CHECK_FALSE(spent_before_request(Budget{}, usage(max_limit_value, max_limit_value, 0, 0)));
}

TEST_CASE("BudgetSources: the tightest of three, and whose it is", "[budget]") {
  BudgetSources s;
  s.own = budget(1000, 5, none, none);
  s.formation = budget(none, 4, 9, none);
  s.caller = budget(none, 3, none, none);
  check_budget(s.effective(), 1000, 3, 9, none);
  CHECK(s.source_of(Spend::model_requests) == "the caller's remaining");
  CHECK(s.source_of(Spend::tokens) == "the capsule's");
  CHECK(s.source_of(Spend::tool_calls) == "the formation's");

  s.caller = Budget{};
  CHECK(s.effective().max_model_requests == 4);
  CHECK(s.source_of(Spend::model_requests) == "the formation's");
  s.formation = Budget{};
  CHECK(s.effective().max_model_requests == 5);
  CHECK(s.source_of(Spend::model_requests) == "the capsule's");

  // Ties: the caller's remaining before the formation's before the capsule's.
  BudgetSources tie;
  tie.own = budget(none, 3, 2, none);
  tie.formation = budget(none, 3, 2, none);
  tie.caller = budget(none, 3, none, none);
  CHECK(tie.source_of(Spend::model_requests) == "the caller's remaining");
  CHECK(tie.source_of(Spend::tool_calls) == "the formation's");
  tie.formation = Budget{};
  tie.own = budget(none, 3, 2, none);
  tie.caller = budget(none, 3, 2, none);
  CHECK(tie.source_of(Spend::tool_calls) == "the caller's remaining");
  tie.caller = budget(none, 5, 8, none);
  CHECK(tie.source_of(Spend::model_requests) == "the capsule's");
  CHECK(tie.source_of(Spend::tool_calls) == "the capsule's");
}

TEST_CASE("exhausted_text names the limit, its value, whose it is and the use", "[budget]") {
  BudgetSources s;
  s.caller = budget(none, 3, none, none);
  CHECK(exhausted_text(LimitHit{Spend::model_requests, 3, 3}, s) ==
        "budget exhausted: max_model_requests (3, the caller's remaining) reached, 3 used");
  s.own = budget(1000, none, none, none);
  CHECK(exhausted_text(LimitHit{Spend::tokens, 1000, 1234}, s) ==
        "budget exhausted: max_tokens (1000, the capsule's) reached, 1234 used");
  s.formation = budget(none, none, none, 2);
  CHECK(exhausted_text(LimitHit{Spend::calls, 2, 2}, s) ==
        "budget exhausted: max_calls (2, the formation's) reached, 2 used");
  s.own.max_tool_calls = 0;
  CHECK(exhausted_text(LimitHit{Spend::tool_calls, 0, 0}, s) ==
        "budget exhausted: max_tool_calls (0, the capsule's) reached, 0 used");
  // The hit found by would_pass, worded.
  const auto hit = would_pass(s.effective(), usage(0, 3, 0, 0), Spend::model_requests);
  REQUIRE(hit);
  CHECK(exhausted_text(*hit, s) == "budget exhausted: max_model_requests (3, the caller's remaining) reached, 3 used");
}
