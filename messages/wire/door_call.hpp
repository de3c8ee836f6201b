// door_call.hpp — what an egress hands the door-call port: where, with which credential, what.
//
// Invariant: the credential travels as a Bearer — a shared pointer to the FormationToken (a call
// to a member) or to the DoorToken of a delegated child's operator credential — which
// CAF may carry between actors of one process but can never print or serialise (it is an
// "unsafe" message type: deep_to_string shows nothing of it). Only the transport reads it, to
// build the Authorization header, and only through expose().
// Rule: the runtime adds the member's credential to its calls; no model ever holds it
// (docs/spec/door.md §Calling another member's door).
#pragma once

#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_token.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include "messages/vocabulary/message_fields.hpp"

#include <memory>
#include <string>

namespace mur {

struct DoorCallTo {
  std::string url; // http://host:port of the callee's door (never shown to a model or a trace)
  MUR_FIELDS(url)
};

struct Bearer {
  std::shared_ptr<const FormationToken> token;   // a formation call's credential
  std::shared_ptr<const DoorToken> door_token;   // a delegated child's operator credential
  // Neither: no Authorization header.
};

} // namespace mur

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mur::Bearer)
