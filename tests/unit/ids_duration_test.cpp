#include "messages/vocabulary/duration.hpp"
#include "messages/vocabulary/ids.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <set>

using namespace std::chrono_literals;

TEST_CASE("ids are prefix + 32 lowercase hex of a UUIDv7", "[ids]") {
  for (auto prefix : {mur::ids::formation, mur::ids::session, mur::ids::task, mur::ids::context,
                      mur::ids::message, mur::ids::member_call, mur::ids::event}) {
    std::string id = mur::ids::mint(prefix);
    CHECK(id.size() == prefix.size() + 32);
    CHECK(mur::ids::is_valid(id, prefix));
    const std::string hex = id.substr(prefix.size());
    CHECK(hex[12] == '7');                                   // version nibble
    CHECK(std::string("89ab").find(hex[16]) != std::string::npos); // RFC 9562 variant
  }
}

TEST_CASE("ids sort by minting order and carry their millisecond", "[ids]") {
  const auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<std::string> ids;
  for (int i = 0; i < 5000; ++i) ids.push_back(mur::ids::mint(mur::ids::task));
  CHECK(std::is_sorted(ids.begin(), ids.end()));
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == ids.size());
  auto ms = mur::ids::minted_at_ms(ids.front(), mur::ids::task);
  REQUIRE(ms);
  CHECK(static_cast<long long>(*ms) >= before);
  CHECK(static_cast<long long>(*ms) < before + 60'000);
}

TEST_CASE("malformed ids are refused", "[ids]") {
  const std::string good = mur::ids::mint(mur::ids::formation);
  CHECK_FALSE(mur::ids::is_valid(good, mur::ids::session));
  CHECK_FALSE(mur::ids::is_valid(good.substr(0, good.size() - 1), mur::ids::formation));
  CHECK_FALSE(mur::ids::is_valid(good + "0", mur::ids::formation));
  std::string upper = good;
  upper[10] = 'A';
  CHECK_FALSE(mur::ids::is_valid(upper, mur::ids::formation));
  CHECK_FALSE(mur::ids::is_valid("frm_", mur::ids::formation));
  CHECK_FALSE(mur::ids::is_valid("", mur::ids::formation));
  CHECK_FALSE(mur::ids::minted_at_ms("frm_zz", mur::ids::formation));
}

namespace {
std::chrono::milliseconds ok(const char* s) {
  auto r = mur::parse_duration(s);
  INFO(s);
  REQUIRE(std::holds_alternative<std::chrono::milliseconds>(r));
  return std::get<std::chrono::milliseconds>(r);
}
std::string bad(const char* s) {
  auto r = mur::parse_duration(s);
  INFO(s);
  REQUIRE(std::holds_alternative<mur::DurationError>(r));
  return std::get<mur::DurationError>(r).why;
}
} // namespace

TEST_CASE("durations in every unit, and bare seconds", "[duration]") {
  CHECK(ok("500ms") == 500ms);
  CHECK(ok("90s") == 90s);
  CHECK(ok("10m") == 10min);
  CHECK(ok("2h") == 2h);
  CHECK(ok("7d") == std::chrono::hours(168));
  CHECK(ok("45") == 45s);
  CHECK(ok("0") == 0ms);
  CHECK(mur::format_duration(90s) == "90s");
  CHECK(mur::format_duration(2h) == "2h");
  CHECK(mur::format_duration(1500ms) == "1500ms");
  CHECK(mur::format_duration(std::chrono::hours(168)) == "7d");
}

TEST_CASE("bad durations get a reason and never echo the input", "[duration]") {
  CHECK(bad("").find("empty") != std::string::npos);
  CHECK(bad("soon").find("whole number") != std::string::npos);
  CHECK(bad("-5s").find("whole number") != std::string::npos);
  CHECK(bad("1.5h").find("unit") != std::string::npos);
  CHECK(bad("10 s").find("unit") != std::string::npos);
  CHECK(bad("10w").find("unit") != std::string::npos);
  CHECK(bad("10S").find("unit") != std::string::npos);
  CHECK(bad("99999999999999999999").find("too large") != std::string::npos);
  CHECK(bad("9999999999999999d").find("too large") != std::string::npos);
  CHECK(bad("secret10x").find("secret") == std::string::npos);
}
