// Text shown on a terminal (messages/vocabulary/terminal_text.hpp): what a terminal would act on
// is written out, everything else kept.
#include "messages/vocabulary/terminal_text.hpp"

#include <catch2/catch.hpp>

using mur::terminal_safe;

TEST_CASE("terminal text: escape sequences are written out, text and UTF-8 kept", "[terminal]") {
  CHECK(terminal_safe("plain words, tabs\tand\nlines") == "plain words, tabs\tand\nlines");
  CHECK(terminal_safe("\x1b]0;owned\x07title") == "\\x1b]0;owned\\x07title");
  CHECK(terminal_safe("clear\x1b[2J\x1b[Hscreen") == "clear\\x1b[2J\\x1b[Hscreen");
  CHECK(terminal_safe("back\rspace\b del\x7f nul") == "back\\x0dspace\\x08 del\\x7f nul");
  CHECK(terminal_safe(std::string("a\0b", 3)) == "a\\x00b");
  // C1 controls as UTF-8 (CSI is U+009B), and characters beside them that are not controls.
  CHECK(terminal_safe("\xc2\x9b" "31m red") == "\\u009b31m red");
  CHECK(terminal_safe("caf\xc3\xa9 \xc2\xa0nbsp \xe2\x80\x94 dash") == "caf\xc3\xa9 \xc2\xa0nbsp \xe2\x80\x94 dash");
  CHECK(terminal_safe("ends in \xc2") == "ends in \\xc2");
  CHECK(terminal_safe("lone \x9b" "31m") == "lone \\x9b31m");
  // Nothing a terminal acts on is left.
  const std::string out = terminal_safe("\x1b\x1b[\x9b\x07\x08\x0c\x0e\x0f\x7f");
  for (char c : out) {
    const auto u = static_cast<unsigned char>(c);
    CHECK((u >= 0x20 && u < 0x7f));
  }
}
