// spawn_refusal.hpp — how a spawn port refuses to start a member, and how the refusal is read.
//
// Invariant: a refusal is a caf::error of the "murspawn" category whose context is exactly the
// reason (one string), so whoever asked — the launcher actor, the route to other hosts — can
// print the port's own words, across machines too (CAF carries the context); an error of any
// other shape has no stated reason.
// Rule: a member that cannot start is named with its reason (docs/spec/formation.md §Launch).
#pragma once

#include <caf/fwd.hpp>

#include <optional>
#include <string>

namespace mur {

caf::error spawn_refusal(const std::string& reason);

// The reason a spawn refusal states; nullopt for an error of any other shape.
std::optional<std::string> spawn_refusal_reason(const caf::error& err);

// Registers the category, so a refusal renders as its reason.
void add_spawn_error_category(caf::actor_system_config& cfg);

} // namespace mur
