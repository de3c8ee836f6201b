// The questions a task holds open (actors/question_queue.hpp): one shown at a time, the first
// open; the others in the order they came; a callee's question replaced in place; an answer,
// withdrawal or timeout closes a question wherever it stands.
#include "actors/question_queue.hpp"

#include <catch2/catch.hpp>

using namespace mur;

namespace {

OpenQuestion own(std::string id, std::string text) {
  return OpenQuestion{std::move(id), std::move(text), [](std::string, bool) {}};
}
OpenQuestion callee(std::string id, std::string text) { return OpenQuestion{std::move(id), std::move(text), nullptr}; }

} // namespace

TEST_CASE("the first question opened is shown, the others wait in order", "[ask]") {
  QuestionQueue q;
  CHECK(q.shown() == nullptr);
  CHECK(q.open(callee("mcl_1", "a asks: one?")));  // the first: the shown one changed
  CHECK_FALSE(q.open(own("ask-1", "lead asks: two?")));
  CHECK_FALSE(q.open(callee("mcl_2", "b asks: three?")));
  REQUIRE(q.shown() != nullptr);
  CHECK(q.shown()->id == "mcl_1");
  bool shown = false;
  CHECK(q.close("mcl_1", &shown)->text == "a asks: one?");
  CHECK(shown);
  CHECK(q.shown()->id == "ask-1");
  CHECK(q.close("mcl_2", &shown)); // a waiting one closes where it stands
  CHECK_FALSE(shown);
  CHECK(q.shown()->id == "ask-1");
  CHECK_FALSE(q.close("mcl_9", &shown)); // never open
  CHECK_FALSE(shown);
}

TEST_CASE("a callee that asks something else replaces its question in place", "[ask]") {
  QuestionQueue q;
  q.open(callee("mcl_1", "a asks: one?"));
  q.open(callee("mcl_2", "b asks: two?"));
  CHECK_FALSE(q.open(callee("mcl_2", "b asks: two, again?"))); // waiting: what is shown did not change
  CHECK_FALSE(q.open(callee("mcl_1", "a asks: one?")));        // the same text: nothing changed
  CHECK(q.open(callee("mcl_1", "a asks: one, again?")));       // shown, and now another question
  CHECK(q.shown()->text == "a asks: one, again?");
  q.close("mcl_1");
  CHECK(q.shown()->text == "b asks: two, again?");
}

TEST_CASE("close_own drops the task's own questions, keeping its callees'", "[ask]") {
  QuestionQueue q;
  q.open(own("ask-1", "lead asks: one?"));
  q.open(callee("mcl_1", "a asks: two?"));
  q.open(own("ask-2", "lead asks: three?"));
  CHECK(q.close_own()); // the shown one was its own
  REQUIRE(q.shown() != nullptr);
  CHECK(q.shown()->id == "mcl_1");
  CHECK_FALSE(q.close_own());
  CHECK(q.shown()->id == "mcl_1");
  q.close("mcl_1");
  CHECK(q.empty());
}
