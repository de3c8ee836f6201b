// formation_event.hpp — the kinds of line the launcher actor reports as a formation runs.
//
// Invariant: a formation reports `formation` once, `ready` once per peer, `entry` once, at most
// one `failed`, `member_exited` for a peer that died while it ran (a fault: the formation ends),
// `member_ended` for a peer whose lifecycle ended it (status 0: no fault), `restarted` each time
// a member that died (after its `member_exited`) answers again as a fresh session, and `ended` last; `to_string` gives the word (as the reporter and the sim name
// it), `parse_formation_event` reads it back.
// Rule: the entry member is started only once every peer is ready (docs/spec/formation.md §Launch).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mur {

enum class FormationEvent : std::uint8_t { formation, ready, entry, failed, ended, member_exited, member_ended, restarted };

std::string to_string(FormationEvent e);
std::optional<FormationEvent> parse_formation_event(std::string_view word);

// Which of the launcher's own timers ran out: (deadline_atom, LauncherDeadline).
enum class LauncherDeadline : std::uint8_t {
  formation, // the formation's --deadline: stop it (exit 124)
  grace,     // the stop grace: kill the members still running
  fault,     // a peer died while the formation ran and the settle time passed: stop it (exit 69)
  peers,     // a stopping formation's entry had its time to wind its tree down: close the peers' lifelines
};

std::string to_string(LauncherDeadline d);

} // namespace mur
