#include "messages/vocabulary/iso_time.hpp"

#include <catch2/catch.hpp>

TEST_CASE("ISO-8601 UTC timestamps to and from unix ms", "[a2a][time]") {
  CHECK(mur::iso_utc_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK(mur::iso_utc_ms(1795998665649) == "2026-11-30T00:31:05.649Z");
  CHECK(mur::parse_iso_utc_ms("2026-11-30T00:31:05.649Z") == 1795998665649);
  CHECK(mur::parse_iso_utc_ms("2026-11-30T00:31:05Z") == 1795998665000);
  CHECK(mur::parse_iso_utc_ms("2026-11-30T00:31:05.6491234Z") == 1795998665649);
  CHECK(mur::parse_iso_utc_ms("2026-11-30T01:31:05.649+01:00") == 1795998665649);
  CHECK(mur::parse_iso_utc_ms("2026-11-29T23:31:05.649-01:00") == 1795998665649);
  for (const char* bad : {"", "2026-11-30", "2026-11-30T00:31:05", "2026-13-30T00:31:05Z", "2026-11-30T00:31:05.Z",
                          "2026-11-30T00:31:05Zjunk", "yesterday", "2026-11-30 00:31:05Z"}) {
    INFO(bad);
    CHECK_FALSE(mur::parse_iso_utc_ms(bad));
  }
}
