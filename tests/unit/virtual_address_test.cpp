#include <catch2/catch.hpp>

#include "messages/credentials/virtual_address.hpp"

using namespace mur;

TEST_CASE("formation hosts in any letter case", "[credentials]") {
  CHECK(is_formation_host("formation.invalid"));
  CHECK(is_formation_host("coder.formation.invalid"));
  CHECK(is_formation_host("a.b.FORMATION.Invalid"));
  CHECK(is_formation_host("Coder.Formation.INVALID."));
  CHECK_FALSE(is_formation_host("xformation.invalid"));
  CHECK_FALSE(is_formation_host("formation.invalid.example.com"));
  CHECK_FALSE(is_formation_host("invalid"));
  CHECK_FALSE(is_formation_host(""));
  CHECK_FALSE(is_formation_host("127.0.0.1"));
}

TEST_CASE("virtual members are exactly <name>.formation.invalid", "[credentials]") {
  CHECK(virtual_member("coder.formation.invalid") == std::optional<std::string>("coder"));
  CHECK(virtual_member("code-r2.FORMATION.invalid") == std::optional<std::string>("code-r2"));
  CHECK(virtual_member("Coder.formation.invalid") == std::optional<std::string>("coder"));
  for (const char* bad : {"formation.invalid", ".formation.invalid", "a.b.formation.invalid",
                          "coder.formation.invalid:80", "u@coder.formation.invalid",
                          "coder.formation.invalid.", "1coder.formation.invalid",
                          "coder_x.formation.invalid", "coder.formation.invalidx", "coder",
                          "[::1].formation.invalid", "coder..formation.invalid", ""}) {
    INFO(bad);
    CHECK_FALSE(virtual_member(bad));
  }
  CHECK(virtual_url("coder") == "http://coder.formation.invalid");
  CHECK(virtual_member(virtual_url("coder").substr(7)) == std::optional<std::string>("coder"));
}
