// The one cut of a text to a size (messages/vocabulary/text_cut.hpp): at a UTF-8 boundary, marked, and the
// same when cut twice.
#include "messages/vocabulary/text_cut.hpp"

#include <catch2/catch.hpp>

using namespace mur;

TEST_CASE("a text is cut at a UTF-8 character boundary, marked, and cut the same way twice", "[unit][text-cut]") {
  std::string within = "short";
  CHECK_FALSE(cut_to(within, 5, "[cut]"));
  CHECK(within == "short");

  // "é" is two bytes: a cap falling between them keeps the character whole, or not at all.
  std::string accented = "aé" + std::string("bbb");
  CHECK(cut_to(accented, 2, "[cut]"));
  CHECK(accented == "a[cut]");
  // A three-byte character ("€") cut after its first or second byte.
  for (std::size_t cap : {2u, 3u}) {
    std::string euro = "a€b";
    CHECK(cut_to(euro, cap, "|"));
    CHECK(euro == "a|");
  }
  std::string exact = "a€b";
  CHECK(cut_to(exact, 4, "|"));
  CHECK(exact == "a€|");

  std::string big(answer_cap + 10, 'x');
  big.replace(answer_cap - 1, 2, "é"); // straddles the cap
  CHECK(cut_to(big, answer_cap, answer_cut_marker));
  CHECK(big.size() == answer_cap - 1 + answer_cut_marker.size());
  std::string again = big;
  CHECK(cut_to(again, answer_cap, answer_cut_marker)); // marked again: the marker is past the cap
  CHECK(again == big);
}
