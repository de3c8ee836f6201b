#include "messages/a2a_task.hpp"

namespace mur {

std::string to_string(TaskState s) {
  switch (s) {
  case TaskState::submitted: return "TASK_STATE_SUBMITTED";
  case TaskState::working: return "TASK_STATE_WORKING";
  case TaskState::input_required: return "TASK_STATE_INPUT_REQUIRED";
  case TaskState::completed: return "TASK_STATE_COMPLETED";
  case TaskState::failed: return "TASK_STATE_FAILED";
  case TaskState::rejected: return "TASK_STATE_REJECTED";
  case TaskState::canceled: return "TASK_STATE_CANCELED";
  }
  return "TASK_STATE_UNSPECIFIED";
}

std::string state_word(TaskState s) {
  switch (s) {
  case TaskState::submitted: return "submitted";
  case TaskState::working: return "working";
  case TaskState::input_required: return "input-required";
  case TaskState::completed: return "completed";
  case TaskState::failed: return "failed";
  case TaskState::rejected: return "rejected";
  case TaskState::canceled: return "canceled";
  }
  return "unknown";
}

bool is_terminal(TaskState s) {
  return s == TaskState::completed || s == TaskState::failed || s == TaskState::rejected ||
         s == TaskState::canceled;
}

} // namespace mur
