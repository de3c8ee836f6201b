// register_messages.hpp — makes an actor system able to carry every message of the vocabulary.
//
// Invariant: `register_message_types` registers exactly the types of the one type-ID block
// (messages/vocabulary/message_types.hpp), each under its block name, and the transport error
// category; it lives with the wire because registering a type needs the whole struct.
// Rule: one message vocabulary, whether the ports behind the actors are real or simulated
// (docs/spec/choices.md §Actors and ports).
#pragma once

#include <caf/fwd.hpp>

namespace mur {

void register_message_types(caf::actor_system_config& cfg);

} // namespace mur
