#include "messages/call_status.hpp"

#include <array>
#include <utility>

namespace mur {
namespace {

constexpr std::array<std::pair<CallStatus, const char*>, 10> words{{
  {CallStatus::started, "started"},
  {CallStatus::busy, "busy"},
  {CallStatus::refused, "refused"},
  {CallStatus::completed, "completed"},
  {CallStatus::failed, "failed"},
  {CallStatus::canceled, "canceled"},
  {CallStatus::rejected, "rejected"},
  {CallStatus::timed_out, "timed_out"},
  {CallStatus::unreachable, "unreachable"},
  {CallStatus::no_answer, "no_answer"},
}};

} // namespace

std::string to_string(CallStatus s) {
  for (const auto& [status, word] : words)
    if (status == s) return word;
  return "unknown";
}

std::optional<CallStatus> parse_call_status(std::string_view word) {
  for (const auto& [status, w] : words)
    if (word == w) return status;
  return std::nullopt;
}

CallStatus call_status_of(TaskState terminal) {
  switch (terminal) {
  case TaskState::completed: return CallStatus::completed;
  case TaskState::canceled: return CallStatus::canceled;
  case TaskState::rejected: return CallStatus::rejected;
  default: return CallStatus::failed;
  }
}

} // namespace mur
