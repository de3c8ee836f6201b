// caf_catch.hpp — runs CAF's deterministic test DSL (caf/test/dsl.hpp) inside Catch2: CAF's
// check macros are mapped onto Catch2's, so a failed expectation fails the Catch2 test case.
// Must be the first include of every sim test file that uses the DSL.
#pragma once
#include <catch2/catch.hpp>

#include "caf/deep_to_string.hpp"
#include "caf/test/unit_test.hpp"
#undef CAF_MESSAGE
#undef CAF_CHECK
#undef CAF_CHECK_EQUAL
#undef CAF_FAIL
#undef CAF_REQUIRE
#undef CAF_REQUIRE_EQUAL
#define CAF_MESSAGE(msg) static_cast<void>(0)
#define CAF_CHECK(...) CHECK(__VA_ARGS__)
#define CAF_REQUIRE(...) REQUIRE(__VA_ARGS__)
#define CAF_FAIL(msg) FAIL(msg)
// x == y as CAF's equal_to judges it, checked with Catch2's `assertion` (CHECK or REQUIRE); a
// failure shows both values.
#define MUR_CAF_EQUAL(assertion, x, y)                                                           \
  do {                                                                                           \
    auto&& caf_x_ = x;                                                                           \
    auto&& caf_y_ = y;                                                                           \
    INFO(#x " == " #y ": " << caf::deep_to_string(caf_x_) << " vs " << caf::deep_to_string(caf_y_)); \
    assertion(::caf::test::equal_to{}(caf_x_, caf_y_));                                          \
  } while (false)
#define CAF_CHECK_EQUAL(x, y) MUR_CAF_EQUAL(CHECK, x, y)
#define CAF_REQUIRE_EQUAL(x, y) MUR_CAF_EQUAL(REQUIRE, x, y)
#include "caf/test/dsl.hpp"

// expect() evaluates in a normal member function, so a failing Catch assertion is reported
// instead of terminating the binary from a destructor.
template <class... Ts>
class catch_expect_clause : public expect_clause<Ts...> {
public:
  using expect_clause<Ts...>::expect_clause;
  ~catch_expect_clause() { this->peek_ = nullptr; }
  void eval() {
    auto f = std::move(this->peek_);
    this->peek_ = nullptr;
    f();
    this->run_once();
  }
};
#undef expect
#define expect(types, fields)                                                  \
  do {                                                                         \
    catch_expect_clause<CAF_EXPAND(CAF_DSL_LIST types)> caf_expect_{sched};    \
    caf_expect_.fields;                                                        \
    caf_expect_.eval();                                                        \
  } while (false)

// The one message of type T waiting for `self` after the scheduler ran (REQUIREs that it came).
template <class T, class Self>
T received(Self& self) {
  T out;
  bool got = false;
  self->receive([&](T& r) { out = std::move(r); got = true; }, caf::after(std::chrono::seconds(0)) >> [] {});
  REQUIRE(got);
  return out;
}
