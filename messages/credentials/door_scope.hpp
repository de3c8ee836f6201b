// door_scope.hpp — what a door credential may reach: a set of door methods.
//
// Invariant: a scope is one of the eight door methods (door_method.hpp; the card probe is no
// scope); the `operator` credential holds every scope, and a formation caller holds exactly
// DoorScopes::formation_call(). Scopes travel as words only inside a sealed token and a
// manifest; their readers turn them into this set, and an unknown word makes the token invalid
// (the manifest: E-MAN-002).
// Rule: a formation token reaches SendMessage and, for its own tasks only, GetTask, ListTasks,
// CancelTask and SubscribeToTask (docs/spec/door.md §What a formation caller reaches).
#pragma once

#include "messages/vocabulary/door_method.hpp"
#include "messages/vocabulary/message_fields.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace mur {

// The eight methods a credential may be granted, in the order tokens and messages list them.
inline constexpr std::array<DoorMethod, 8> DOOR_SCOPES = {
    DoorMethod::send_message, DoorMethod::send_streaming_message, DoorMethod::get_task,
    DoorMethod::list_tasks,   DoorMethod::cancel_task,            DoorMethod::subscribe_to_task,
    DoorMethod::get_extended_agent_card, DoorMethod::session_stop};

inline constexpr std::string_view OPERATOR_CREDENTIAL = "operator";

class DoorScopes {
public:
  DoorScopes() = default;
  DoorScopes(std::initializer_list<DoorMethod> methods) {
    for (DoorMethod m : methods) add(m);
  }
  // Every scope (the operator's).
  static DoorScopes all();
  // The five a formation caller reaches: the seed's five (docs/spec/choices.md §Protocol
  // choices), not the reference system's three.
  static DoorScopes formation_call();

  bool has(DoorMethod m) const { return (bits & bit(m)) != 0; }
  bool empty() const { return bits == 0; }
  // Adds `m`; false (and nothing added) when it is no scope (unknown, the card probe).
  bool add(DoorMethod m);
  // The scopes' wire words, in DOOR_SCOPES order.
  std::vector<std::string> words() const;

  std::uint16_t bits = 0;
  MUR_FIELDS(bits)

private:
  static constexpr std::uint16_t bit(DoorMethod m) { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(m)); }
};

inline bool is_door_scope(DoorMethod m) {
  for (DoorMethod s : DOOR_SCOPES)
    if (s == m) return true;
  return false;
}

} // namespace mur
