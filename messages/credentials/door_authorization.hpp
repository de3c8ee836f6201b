// door_authorization.hpp — who an A2A request's Authorization header says is calling.
//
// Invariant: zero Authorization lines is Missing; more than one, a scheme other than `Bearer`
// (any case), or a token no verifier accepts is Invalid — without saying why. An `mft1` token
// goes only to the formation verifier (a door with none answers Invalid); anything else is
// opened as an `mdt1` door token. A formation caller reaches exactly DoorScopes::formation_call().
// Rule: a formation token opens only its `to` member's door; anywhere else it is NotPermitted
// and reaches nothing (docs/spec/door.md §Formation tokens, §Refusals at the door).
#pragma once

#include "messages/credentials/door_scope.hpp"
#include "messages/vocabulary/message_fields.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mur {

class DoorTokenIssuer;
class FormationVerifier;

struct DoorAuthorization {
  enum class Kind { Missing, Invalid, NotPermitted, Ok };
  Kind kind = Kind::Invalid;
  std::string credential;          // Ok: the door credential (`operator`, a declared name, `member:<m>`)
  DoorScopes scopes;               // Ok: what it reaches
  bool is_formation = false;       // Ok / NotPermitted: let in on a formation token
  std::string caller;              // formation token's `from` (Ok or NotPermitted)

  bool reaches(DoorMethod method) const;
  MUR_FIELDS(kind, credential, scopes, is_formation, caller)
};

// `header_values`: every Authorization header line of the request, in order.
// `formation`: this door's formation verifier, or nullptr when it is in no formation.
DoorAuthorization verify_authorization(const std::vector<std::string_view>& header_values,
                                       const DoorTokenIssuer& door_tokens,
                                       const FormationVerifier* formation);

} // namespace mur
