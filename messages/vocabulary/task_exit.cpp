#include "messages/vocabulary/task_exit.hpp"

#include "messages/vocabulary/enum_words.hpp"

namespace mur {
namespace {

constexpr EnumWords<TaskExit, 7> words{{
  {TaskExit::ok, "ok"}, {TaskExit::failed, "failed"}, {TaskExit::max_turns_reached, "max_turns_reached"},
  {TaskExit::no_answer, "no_answer"}, {TaskExit::canceled, "canceled"}, {TaskExit::timed_out, "timed_out"},
  {TaskExit::budget_exhausted, "budget_exhausted"}}};

} // namespace

std::string to_string(TaskExit e) { return word_of(words, e); }

} // namespace mur
