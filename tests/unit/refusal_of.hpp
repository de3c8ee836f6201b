// refusal_of.hpp — for tests of refusals: the Failure a parser throws for a text, and the check
// that it carries a code, a message naming what was wrong, and a Fix.
#pragma once

#include "messages/vocabulary/failure.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace mur::test {

// `parse(text)` must throw a Failure; returns it (FAILs the test if the text was accepted).
template <class Parse>
Failure refusal_of(Parse parse, const std::string& text, const char* what) {
  try {
    parse(text);
  } catch (const Failure& f) {
    return f;
  }
  FAIL("the " << what << " was accepted:\n" << text);
  throw;
}

// The refusal has `code`, a message containing `fragment`, and a Fix line.
inline void check_refusal(const Failure& f, const std::string& text, const std::string& code,
                          const std::string& fragment) {
  INFO(text << "\n=> " << f.code() << " " << f.message() << " / Fix: " << f.fix());
  CHECK(f.code() == code);
  CHECK(f.message().find(fragment) != std::string::npos);
  CHECK_FALSE(f.fix().empty());
}

} // namespace mur::test
