// message_types.hpp — the one registration of every typed message the actors exchange.
//
// Invariant: every inspectable message type of messages/ is known to an actor system by a
// stable name, so it can be printed in traces of the test DSL and serialised if ever needed;
// the unsafe ones (Bearer, BundleRef) are deliberately absent: they never leave a process.
#pragma once

#include <caf/fwd.hpp>

namespace mur {

void register_message_types(caf::actor_system_config& cfg);

} // namespace mur
