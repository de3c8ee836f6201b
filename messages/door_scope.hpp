// door_scope.hpp — what a door credential may reach.
//
// Invariant: a scope is one of the door's method names (plus `session/stop`); the `operator`
// credential holds every scope, and a formation caller holds exactly FORMATION_CALL_SCOPES.
// An unknown scope in a sealed token makes the token invalid.
// Seed: "Exactly what a valid formation token reaches at the door it was issued for: starting a
// task, and reading, listing, cancelling and subscribing to the tasks this member started."
#pragma once

#include <array>
#include <string_view>

namespace mur {

inline constexpr std::array<std::string_view, 8> DOOR_SCOPES = {
    "SendMessage", "SendStreamingMessage", "GetTask",              "ListTasks",
    "CancelTask",  "SubscribeToTask",      "GetExtendedAgentCard", "session/stop"};

// The seed's five (docs/spec/decisions.md §Protocol choices), not the reference system's three.
inline constexpr std::array<std::string_view, 5> FORMATION_CALL_SCOPES = {
    "SendMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask"};

inline constexpr std::string_view OPERATOR_CREDENTIAL = "operator";

inline bool is_door_scope(std::string_view scope) {
  for (std::string_view s : DOOR_SCOPES)
    if (s == scope) return true;
  return false;
}

} // namespace mur
