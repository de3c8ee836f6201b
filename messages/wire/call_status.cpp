#include "messages/wire/call_status.hpp"

#include "messages/vocabulary/enum_words.hpp"

namespace mur {
namespace {

constexpr EnumWords<CallStatus, 10> words{{
  {CallStatus::started, "started"}, {CallStatus::busy, "busy"}, {CallStatus::refused, "refused"},
  {CallStatus::completed, "completed"}, {CallStatus::failed, "failed"}, {CallStatus::canceled, "canceled"},
  {CallStatus::rejected, "rejected"}, {CallStatus::timed_out, "timed_out"},
  {CallStatus::unreachable, "unreachable"}, {CallStatus::no_answer, "no_answer"}}};

} // namespace

std::string to_string(CallStatus s) { return word_of(words, s); }

std::optional<CallStatus> parse_call_status(std::string_view word) { return value_of(words, word); }

CallStatus call_status_of(TaskState terminal) {
  switch (terminal) {
  case TaskState::completed: return CallStatus::completed;
  case TaskState::canceled: return CallStatus::canceled;
  case TaskState::rejected: return CallStatus::rejected;
  default: return CallStatus::failed;
  }
}

} // namespace mur
