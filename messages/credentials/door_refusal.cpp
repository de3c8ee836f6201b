#include "messages/credentials/door_refusal.hpp"

#include "messages/vocabulary/enum_words.hpp"

namespace mur {

namespace {

// The refusals' words (a refusal's `error` on the wire); none has no word.
constexpr EnumWords<DoorRefusal, 5> words{{
  {DoorRefusal::unauthenticated, "unauthenticated"}, {DoorRefusal::invalid_token, "invalid_token"},
  {DoorRefusal::not_permitted, "not_permitted"}, {DoorRefusal::peer_not_accepted, "peer_not_accepted"},
  {DoorRefusal::insufficient_scope, "insufficient_scope"}}};

} // namespace

std::string to_string(DoorRefusal r) { return r == DoorRefusal::none ? std::string() : word_of(words, r); }

std::optional<DoorRefusal> door_refusal_from(std::string_view word) { return value_of(words, word); }

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
