// capsule_names.hpp — the spelling rules for capsule names, versions and member names.
//
// Invariant: a name or version that passes here is safe as one directory name in a store
// (no '/', no '..', no spaces) and is exactly what the roster pins ("a capsule at an exact
// version"). Floating versions (latest, stable, edge, in any case) are never exact.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mur::names {

// [a-z0-9-], 1..100 chars, no leading or trailing '-'. Returns why not, or nullopt when valid.
std::optional<std::string> capsule_name_problem(std::string_view name);

// Not blank; not latest/stable/edge in any case; 1..64 of [A-Za-z0-9._+-], not starting with '.'.
std::optional<std::string> version_problem(std::string_view version);

// ^[a-z][a-z0-9-]{0,31}$ — a roster member's name (never contains '.' or ':').
std::optional<std::string> member_name_problem(std::string_view name);

} // namespace mur::names
