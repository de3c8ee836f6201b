// door_method.cpp — see door_method.hpp.
#include "messages/vocabulary/door_method.hpp"

#include "messages/vocabulary/enum_words.hpp"

namespace mur {
namespace {

// The one table of the door's method words (A2A v1.0 names, plus mur's session/stop).
constexpr EnumWords<DoorMethod, 8> words{{
  {DoorMethod::send_message, "SendMessage"}, {DoorMethod::send_streaming_message, "SendStreamingMessage"},
  {DoorMethod::get_task, "GetTask"}, {DoorMethod::list_tasks, "ListTasks"},
  {DoorMethod::cancel_task, "CancelTask"}, {DoorMethod::subscribe_to_task, "SubscribeToTask"},
  {DoorMethod::get_extended_agent_card, "GetExtendedAgentCard"},
  {DoorMethod::session_stop, "session/stop"}}};

} // namespace

std::string to_string(DoorMethod m) {
  if (m == DoorMethod::agent_card) return "agent-card";
  if (m == DoorMethod::unknown) return "";
  return word_of(words, m);
}

std::optional<DoorMethod> door_method_named(std::string_view word) { return value_of(words, word); }

bool starts_task(DoorMethod m) { return m == DoorMethod::send_message || m == DoorMethod::send_streaming_message; }

bool streams(DoorMethod m) { return m == DoorMethod::send_streaming_message || m == DoorMethod::subscribe_to_task; }

bool names_task(DoorMethod m) {
  return m == DoorMethod::get_task || m == DoorMethod::cancel_task || m == DoorMethod::subscribe_to_task;
}

} // namespace mur
