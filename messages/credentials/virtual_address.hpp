// virtual_address.hpp — the names a guest calls its callees by.
//
// Invariant: every host under FORMATION_PEER_DOMAIN (any letter case) is the runtime's to route
// or refuse, never sent as written; a callee's virtual authority is exactly
// `<name>.formation.invalid` — one label that is a member name, no port, no user info.
// Rule: a guest knows its callees by name, at http://<name>.formation.invalid, a host the
// runtime routes or refuses (docs/spec/door.md §The formation channel).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mur {

inline constexpr std::string_view FORMATION_PEER_DOMAIN = "formation.invalid";

// Whether `host` is `formation.invalid` or lies under it, in any letter case (a trailing root
// dot is tolerated).
bool is_formation_host(std::string_view host);

// The member `authority` names when it is exactly `<name>.formation.invalid`, else nullopt.
std::optional<std::string> virtual_member(std::string_view authority);

// `http://<name>.formation.invalid`.
std::string virtual_url(std::string_view name);

} // namespace mur
