// task_progress.hpp — what a task actor reports to its door as it runs and when it ends.
//
// Invariant: a task reports Working at most once and Finished exactly once; after Finished it
// sends nothing more. The door is the only holder of a task's public state.
// Rule: the entry's work is a task on its own door, listed by ListTasks while it runs
// (docs/spec/formation.md §Launch).
#pragma once

#include "messages/wire/a2a_task.hpp"

#include "messages/vocabulary/message_fields.hpp"
#include "messages/vocabulary/task_exit.hpp"
#include "messages/vocabulary/transcript.hpp"

#include <string>
#include <vector>

namespace mur {

struct TaskWorking {
  std::string task_id;
  MUR_FIELDS(task_id)
};

struct TaskFinished {
  std::string task_id;
  TaskState state = TaskState::completed; // completed, failed (also no answer), canceled
  std::string status_text;                // the reason for failed/no answer; a summary otherwise
  std::string answer;                     // completed: the answer (annotated when it stands in for members)
  bool no_answer = false;
  std::vector<NoAnswer> no_answer_below;
  TaskExit exit_status = TaskExit::ok;
  Usage usage;                            // what it and the tasks below it spent
  Transcript exchange;                    // a threaded member's completed task: its messages after the
                                          // system message and the earlier exchanges (empty otherwise)
  MUR_FIELDS(task_id, state, status_text, answer, no_answer, no_answer_below, exit_status, usage, exchange)
};

} // namespace mur
