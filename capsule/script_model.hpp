// script_model.hpp — the embedded, deterministic model (docs/spec/choices.md §Script model),
// behind the model port.
//
// Invariant: turn k of a task plays entry k of the first route whose regex matches the task
// text (else of `turns`); `think_ms` passes on the actor clock (simulated time in tests) before
// the turn is produced; templates {{task}}, {{member}}, {{answer.NAME}}, {{answers}} are filled
// from the request; a script that runs out of entries replies with an empty answer.
#pragma once

#include "actors/ports.hpp"
#include "capsule/manifest.hpp"

#include <caf/fwd.hpp>

namespace mur {

model_port spawn_script_model(caf::actor_system& sys, const Inference& script);

} // namespace mur
