// state_behavior.hpp — one named state of a typed actor: the handlers of the messages that state
// expects, a part of the actor's interface (CAF's typed behaviours must name all of it).
//
// Invariant: every handler matches a signature of the actor's interface (checked at compile
// time, so a handler can never silently fail to match); a message of the interface that the
// current state does not name reaches CAF's default handler, which prints it as unexpected and
// drops it (a request gets an error). A machine that sets no timer outliving the state that set
// it never sees one: such a print is a bug in the machine.
// Rule: a rule is a message-driven state machine, each state a behaviour entered with `become`
// (docs/spec/choices.md §Actors and ports), as in CAF's own examples.
#pragma once

#include <caf/behavior.hpp>
#include <caf/deduce_mpi.hpp>
#include <caf/detail/type_list.hpp>
#include <caf/typed_behavior.hpp>

#include <utility>

namespace mur {

template <class Handle, class... Fs>
typename Handle::behavior_type state_behavior(Fs... handlers) {
  static_assert((caf::detail::tl_contains<typename Handle::signatures, caf::deduce_mpi_t<Fs>>::value && ...),
                "a state's handler does not match any message of the actor's interface");
  using behavior_type = typename Handle::behavior_type;
  return behavior_type{typename behavior_type::unsafe_init{}, caf::behavior{std::move(handlers)...}};
}

} // namespace mur
