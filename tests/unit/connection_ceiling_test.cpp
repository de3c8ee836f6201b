// A listener's connection ceiling (http/connection_ceiling.hpp): below the descriptor limit
// with room to spare, MURMUR_MAX_CONNECTIONS within range, anything else E-RUN-054.
#include <catch2/catch.hpp>

#include "http/connection_ceiling.hpp"
#include "messages/vocabulary/failure.hpp"

using namespace mur;

TEST_CASE("connection ceiling: the default sits well below the limit", "[unit][bounds]") {
  CHECK(door_connection_ceiling(1024, std::nullopt) == 256);
  CHECK(door_connection_ceiling(600, std::nullopt) == 236); // (600 − 128) / 2
  CHECK(door_connection_ceiling(20000, std::nullopt) == 256);
  CHECK(door_connection_ceiling(100, std::nullopt) == 25); // a tiny limit: half of half
  CHECK(door_connection_ceiling(1, std::nullopt) == 1);
  CHECK(bounded_ceiling(tool_server_connections, 20000) == 32);
  CHECK(bounded_ceiling(view_server_connections, 200) == 50);
}

TEST_CASE("connection ceiling: MURMUR_MAX_CONNECTIONS in range is taken as it is", "[unit][bounds]") {
  CHECK(door_connection_ceiling(1024, std::string("10")) == 10);
  CHECK(door_connection_ceiling(1024, std::string("896")) == 896); // 1024 − 128
  CHECK(door_connection_ceiling(20000, std::string("5000")) == 5000);
}

TEST_CASE("connection ceiling: a bad MURMUR_MAX_CONNECTIONS is E-RUN-054 with its range", "[unit][bounds]") {
  for (const std::string bad : {"", "0", "897", "-1", "10x", " 10", "1e3", "99999999999999"}) {
    INFO("value '" << bad << "'");
    try {
      door_connection_ceiling(1024, bad);
      FAIL("accepted");
    } catch (const Failure& f) {
      CHECK(f.code() == "E-RUN-054");
      CHECK(f.message().find("1 to 896") != std::string::npos);
      CHECK(!f.fix().empty());
    }
  }
}
