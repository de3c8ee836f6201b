// door_refusal.hpp — why a door turns a caller away before any method runs, as a domain value.
//
// Invariant: a refusal names what is wrong with the caller, never how a transport says so: the
// door actor answers one of these, and only http/ maps it to a status, a body and a challenge
// (401 unauthenticated / invalid_token, 403 the rest). `judge_caller` is the one rule for steps 2
// and 3 of docs/spec/door.md §Request processing order (token, then peer consent): the door
// actor applies it to every
// request, and the HTTP adapter applies it before it reads a byte of the body.
// Rule: a formation token at another member's door is refused before anything is reached
// (docs/spec/door.md §Formation tokens, §Refusals at the door).
#pragma once

#include "messages/credentials/door_authorization.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mur {

enum class DoorRefusal : std::uint8_t {
  none,
  unauthenticated,     // no Authorization header at an authenticated door
  invalid_token,       // a header no verifier of this door accepts
  not_permitted,       // a good formation token for another edge of the roster
  peer_not_accepted,   // a formation caller or peer-origin task at a door that takes none
  insufficient_scope,  // the credential does not reach the method
};

// The wire word (`unauthenticated`, …); "" for none.
std::string to_string(DoorRefusal r);
// The inverse of to_string; nullopt for an unknown word.
std::optional<DoorRefusal> door_refusal_from(std::string_view word);

struct CallerRefusal {
  DoorRefusal kind = DoorRefusal::none;
  std::string message; // what the caller is told (never why a token failed)
};

// Steps 2–3: `authenticated` and `accepts_peer_tasks` are the door's; `verdict` and
// `peer_origin` the request's. nullopt when the caller may go on to the method.
std::optional<CallerRefusal> judge_caller(bool authenticated, bool accepts_peer_tasks,
                                          const DoorAuthorization& verdict, bool peer_origin);

// Step 11's text: "credential '<c>' does not reach <method>".
std::string scope_refusal_message(bool authenticated, const DoorAuthorization& verdict, DoorMethod method);

} // namespace mur
