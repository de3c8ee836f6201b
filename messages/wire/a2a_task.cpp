#include "messages/wire/a2a_task.hpp"

namespace mur {
namespace {

// How people read a state (mur's output, traces); the wire's names are task_state_names.
constexpr EnumWords<TaskState, 7> words{{
  {TaskState::submitted, "submitted"}, {TaskState::working, "working"},
  {TaskState::input_required, "input-required"}, {TaskState::completed, "completed"},
  {TaskState::failed, "failed"}, {TaskState::rejected, "rejected"}, {TaskState::canceled, "canceled"}}};

} // namespace

std::string to_string(TaskState s) {
  const std::string name = word_of(task_state_names, s);
  return name == "unknown" ? "TASK_STATE_UNSPECIFIED" : name;
}

std::optional<TaskState> task_state_named(std::string_view name) { return value_of(task_state_names, name); }

std::string state_word(TaskState s) { return word_of(words, s); }

bool is_terminal(TaskState s) {
  return s == TaskState::completed || s == TaskState::failed || s == TaskState::rejected ||
         s == TaskState::canceled;
}

} // namespace mur
