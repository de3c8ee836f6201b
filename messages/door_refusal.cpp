#include "messages/door_refusal.hpp"

namespace mur {

std::string to_string(DoorRefusal r) {
  switch (r) {
  case DoorRefusal::none: return "";
  case DoorRefusal::unauthenticated: return "unauthenticated";
  case DoorRefusal::invalid_token: return "invalid_token";
  case DoorRefusal::not_permitted: return "not_permitted";
  case DoorRefusal::peer_not_accepted: return "peer_not_accepted";
  case DoorRefusal::insufficient_scope: return "insufficient_scope";
  }
  return "";
}

std::optional<DoorRefusal> door_refusal_from(std::string_view word) {
  for (auto r : {DoorRefusal::unauthenticated, DoorRefusal::invalid_token, DoorRefusal::not_permitted,
                 DoorRefusal::peer_not_accepted, DoorRefusal::insufficient_scope})
    if (to_string(r) == word) return r;
  return std::nullopt;
}

std::optional<CallerRefusal> judge_caller(bool authenticated, bool accepts_peer_tasks,
                                          const DoorAuthorization& verdict, bool peer_origin) {
  if (authenticated) {
    switch (verdict.kind) {
    case DoorAuthorization::Kind::Missing:
      return CallerRefusal{DoorRefusal::unauthenticated,
                           "this door takes a token minted by this capsule's runtime, sent as Authorization: Bearer <token>"};
    case DoorAuthorization::Kind::Invalid:
      return CallerRefusal{DoorRefusal::invalid_token, "the Authorization header holds no token this session minted"};
    case DoorAuthorization::Kind::NotPermitted:
      return CallerRefusal{DoorRefusal::not_permitted, "member '" + verdict.caller + "' may not call this capsule"};
    case DoorAuthorization::Kind::Ok: break;
    }
  }
  const bool formation = authenticated && verdict.is_formation;
  if ((formation || peer_origin) && !accepts_peer_tasks)
    return CallerRefusal{DoorRefusal::peer_not_accepted, "this capsule does not accept tasks from peers"};
  return std::nullopt;
}

std::string scope_refusal_message(bool authenticated, const DoorAuthorization& verdict, DoorMethod method) {
  return "credential '" + (authenticated ? verdict.credential : std::string("public")) + "' does not reach " + to_string(method);
}

} // namespace mur
