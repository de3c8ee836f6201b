// budget_values.hpp — budgets and usages written in one line, for the budget tests.
#pragma once

#include "messages/vocabulary/task_budget.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

namespace mur {

inline Budget budget(std::int64_t tokens, std::int64_t model_requests, std::int64_t tool_calls, std::int64_t calls) {
  Budget b;
  b.max_tokens = tokens;
  b.max_model_requests = model_requests;
  b.max_tool_calls = tool_calls;
  b.max_calls = calls;
  return b;
}

inline Usage usage(std::int64_t tokens, std::int64_t model_requests, std::int64_t tool_calls, std::int64_t calls) {
  Usage u;
  u.tokens = tokens;
  u.model_requests = model_requests;
  u.tool_calls = tool_calls;
  u.calls = calls;
  return u;
}

inline void check_budget(const Budget& b, std::int64_t tokens, std::int64_t model_requests, std::int64_t tool_calls,
                  std::int64_t calls) {
  CHECK(b.max_tokens == tokens);
  CHECK(b.max_model_requests == model_requests);
  CHECK(b.max_tool_calls == tool_calls);
  CHECK(b.max_calls == calls);
}

} // namespace mur
