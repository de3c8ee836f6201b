// task_progress.hpp — what a task actor reports to its door as it runs and when it ends.
//
// Invariant: a task reports Working at most once and Finished exactly once; after Finished it
// sends nothing more. The door is the only holder of a task's public state.
// Seed: "Either way, the entry member's task is a task on its door, which ListTasks lists while
// it runs."
#pragma once

#include "messages/a2a_task.hpp"

#include <caf/meta/type_name.hpp>

#include <string>
#include <vector>

namespace mur {

struct TaskWorking {
  std::string task_id;
  bool operator==(const TaskWorking& o) const { return task_id == o.task_id; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TaskWorking& x) {
  return f(caf::meta::type_name("mur::TaskWorking"), x.task_id);
}

struct TaskFinished {
  std::string task_id;
  TaskState state = TaskState::completed; // completed, failed (also no answer), canceled
  std::string status_text;                // the reason for failed/no answer; a summary otherwise
  std::string answer;                     // completed: the answer (annotated when it stands in for members)
  bool no_answer = false;
  std::vector<NoAnswer> no_answer_below;
  std::string exit_status;                // ok, failed, max_turns_reached, no_answer, canceled
  bool operator==(const TaskFinished& o) const {
    return task_id == o.task_id && state == o.state && status_text == o.status_text && answer == o.answer &&
           no_answer == o.no_answer && no_answer_below == o.no_answer_below && exit_status == o.exit_status;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TaskFinished& x) {
  return f(caf::meta::type_name("mur::TaskFinished"), x.task_id, x.state, x.status_text, x.answer,
           x.no_answer, x.no_answer_below, x.exit_status);
}

} // namespace mur
