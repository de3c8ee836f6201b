#include "messages/task_exit.hpp"

namespace mur {

std::string to_string(TaskExit e) {
  switch (e) {
  case TaskExit::ok: return "ok";
  case TaskExit::failed: return "failed";
  case TaskExit::max_turns_reached: return "max_turns_reached";
  case TaskExit::no_answer: return "no_answer";
  case TaskExit::canceled: return "canceled";
  }
  return "unknown";
}

} // namespace mur
