#include "messages/vocabulary/formation_event.hpp"

#include "messages/vocabulary/enum_words.hpp"

namespace mur {
namespace {

constexpr EnumWords<FormationEvent, 8> words{{
  {FormationEvent::formation, "formation"}, {FormationEvent::ready, "ready"},
  {FormationEvent::entry, "entry"}, {FormationEvent::failed, "failed"}, {FormationEvent::ended, "ended"},
  {FormationEvent::member_exited, "member_exited"}, {FormationEvent::member_ended, "member_ended"},
  {FormationEvent::restarted, "restarted"}}};

constexpr EnumWords<LauncherDeadline, 4> deadline_words{{
  {LauncherDeadline::formation, "formation"}, {LauncherDeadline::grace, "grace"},
  {LauncherDeadline::fault, "fault"}, {LauncherDeadline::peers, "peers"}}};

} // namespace

std::string to_string(FormationEvent e) { return word_of(words, e); }

std::optional<FormationEvent> parse_formation_event(std::string_view word) { return value_of(words, word); }

std::string to_string(LauncherDeadline d) { return word_of(deadline_words, d); }

} // namespace mur
