// The restart budget (messages/vocabulary/restart_budget.hpp): at most `max` grants within any
// window of `within`; grants older than the window are forgotten; max 0 never grants one.
#include "messages/vocabulary/restart_budget.hpp"

#include <catch2/catch.hpp>

using namespace mur;
using namespace std::chrono_literals;

TEST_CASE("a restart budget grants max restarts within its sliding window", "[restart]") {
  RestartBudget b(RestartPolicy{2, 60s});
  const auto t0 = std::chrono::steady_clock::time_point{} + 1000s;
  CHECK(b.take(t0));
  CHECK(b.take(t0 + 10s));
  CHECK(b.in_window() == 2);
  CHECK_FALSE(b.take(t0 + 59s)); // a third within 60 s of the first
  CHECK(b.take(t0 + 60s));       // the first left the window
  CHECK_FALSE(b.take(t0 + 61s)); // the second (t0+10) and third (t0+60) are still in it
  CHECK(b.take(t0 + 200s));
  CHECK(b.granted() == 4);
}

TEST_CASE("a restart budget of max 0 never grants a restart", "[restart]") {
  RestartBudget none;
  CHECK_FALSE(none.take(std::chrono::steady_clock::time_point{} + 5s));
  CHECK(none.granted() == 0);
}
