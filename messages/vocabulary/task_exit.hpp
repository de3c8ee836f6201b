// task_exit.hpp — how a task actor's task ended, as its task_end trace names it.
//
// Invariant: every task ends with exactly one of these; `to_string` gives the word the
// `task_end` trace event carries in `exit_status` (unchanged from when it was a string).
// Rule: a member left without an answer may end its task with end-without-answer
// (docs/spec/formation.md §How a member gives another work).
#pragma once

#include <cstdint>
#include <string>

namespace mur {

enum class TaskExit : std::uint8_t { ok, failed, max_turns_reached, no_answer, canceled, timed_out, budget_exhausted };

std::string to_string(TaskExit e);

} // namespace mur
