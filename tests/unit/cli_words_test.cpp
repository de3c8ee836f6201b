// The did-you-mean of the command line (launcher/base/cli_words.hpp): a likely typo of a known word
// is named, a word that is nothing like any is not.
#include <catch2/catch.hpp>

#include "launcher/base/cli_words.hpp"

using mur::edit_distance;
using mur::nearest_word;

TEST_CASE("edit distance counts a swap of two neighbours as one edit", "[unit][cli]") {
  CHECK(edit_distance("install", "install") == 0);
  CHECK(edit_distance("instal", "install") == 1);
  CHECK(edit_distance("--versoin", "--version") == 1);
  CHECK(edit_distance("shw", "show") == 1);
  CHECK(edit_distance("", "ps") == 2);
  CHECK(edit_distance("abc", "xyz") == 3);
}

TEST_CASE("nearest_word names a likely typo, a unique prefix, and nothing else", "[unit][cli]") {
  const std::vector<std::string> commands{"install", "list", "doctor", "new", "run", "send", "stop", "ps", "trace"};
  CHECK(nearest_word("instal", commands) == "install");
  CHECK(nearest_word("doctr", commands) == "doctor");
  CHECK(nearest_word("stpo", commands) == "stop");
  CHECK(nearest_word("doc", commands) == "doctor"); // the start of exactly one
  CHECK(nearest_word("s", commands).empty());        // too short to mean anything
  CHECK(nearest_word("frobnicate", commands).empty());
  CHECK(nearest_word("deploy", commands).empty());
}
