#include "messages/formation_event.hpp"

#include <array>
#include <utility>

namespace mur {
namespace {

constexpr std::array<std::pair<FormationEvent, const char*>, 7> words{{
  {FormationEvent::formation, "formation"},
  {FormationEvent::ready, "ready"},
  {FormationEvent::entry, "entry"},
  {FormationEvent::failed, "failed"},
  {FormationEvent::ended, "ended"},
  {FormationEvent::member_exited, "member_exited"},
  {FormationEvent::member_ended, "member_ended"},
}};

} // namespace

std::string to_string(FormationEvent e) {
  for (const auto& [event, word] : words)
    if (event == e) return word;
  return "unknown";
}

std::optional<FormationEvent> parse_formation_event(std::string_view word) {
  for (const auto& [event, w] : words)
    if (word == w) return event;
  return std::nullopt;
}

std::string to_string(LauncherDeadline d) {
  switch (d) {
  case LauncherDeadline::formation: return "formation";
  case LauncherDeadline::grace: return "grace";
  case LauncherDeadline::fault: return "fault";
  }
  return "unknown";
}

} // namespace mur
