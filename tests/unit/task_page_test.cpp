// The ListTasks order and cursor (actors/task_page.hpp): newest status first, ties by id, and a
// token that spells exactly one cursor and refuses anything else.
#include <catch2/catch.hpp>

#include "actors/task_page.hpp"
#include "messages/vocabulary/base64url.hpp"

#include <string>
#include <vector>

using namespace mur;

TEST_CASE("rows list newest status first, ties broken by the newer id", "[list]") {
  CHECK(listed_before(20, "tsk_a", 10, "tsk_b"));
  CHECK_FALSE(listed_before(10, "tsk_b", 20, "tsk_a"));
  CHECK(listed_before(10, "tsk_b", 10, "tsk_a"));
  CHECK_FALSE(listed_before(10, "tsk_a", 10, "tsk_a")); // a row is not before itself
}

TEST_CASE("a cursor token round-trips and refuses what this door did not spell", "[list]") {
  const TaskCursor c{1764547200123, "tsk_0192abcdef"};
  const std::string token = encode_cursor(c);
  CHECK(token.find("tsk_") == std::string::npos); // opaque, not the id in clear
  auto back = decode_cursor(token);
  REQUIRE(back);
  CHECK(back->updated_ms == c.updated_ms);
  CHECK(back->id == c.id);
  for (const std::string& bad : std::vector<std::string>{"", "7", "not base64!", b64url::encode("123"), b64url::encode("|tsk_a"),
                                b64url::encode("12|"), b64url::encode("-5|tsk_a"), b64url::encode("12|tsk a"),
                                b64url::encode("99999999999999999999|tsk_a")}) {
    INFO(bad);
    CHECK_FALSE(decode_cursor(bad));
  }
}
