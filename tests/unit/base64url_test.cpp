#include <catch2/catch.hpp>

#include "messages/vocabulary/base64url.hpp"

using namespace mur;

TEST_CASE("base64url is unpadded, URL-safe and strict", "[credentials]") {
  CHECK(b64url::encode("") == "");
  CHECK(b64url::encode("f") == "Zg");
  CHECK(b64url::encode("fo") == "Zm8");
  CHECK(b64url::encode("foo") == "Zm9v");
  CHECK(b64url::encode("\xfb\xff") == "-_8");
  CHECK(b64url::decode("Zm8") == std::optional<std::string>("fo"));
  CHECK(b64url::decode("-_8") == std::optional<std::string>("\xfb\xff"));
  CHECK(b64url::decode("") == std::optional<std::string>(""));
  for (const char* bad : {"Zg==", "Zg=", "Zm8=", "+/8", "Zh", "Zm9", "Z", "Zm9v\n", " Zm9v", "Zm 9v",
                          "Zm9v.", "Zm9vZ"}) {
    INFO(bad);
    CHECK_FALSE(b64url::decode(bad));
  }
}
