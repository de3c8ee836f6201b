// env_needs.hpp — which of the launcher's environment variables a member needs: those its
// capsule reads as `${NAME}` (inference.api_key, inference.env, tools[].env, tools[].headers),
// and those of every capsule it may delegate to, down its capabilities.spawn.allow (a delegated
// child inherits its parent's environment).
//
// Invariant: env_read_by names exactly the variables a capsule reads when it starts or runs a
// turn; env_needed adds, once each, those of every capsule its spawn.allow reaches through the
// stores (one that cannot be resolved adds nothing: it cannot start either). The launcher hands
// each member its environment without the variables another member needs and it does not, so a
// key is held only by the members that read it (launcher/run/process_spawner.hpp).
// Rule: the launcher hands members only what they need (docs/isolation.md §Secrets).
#pragma once

#include "capsule/capsule_store.hpp"
#include "capsule/manifest.hpp"

#include <set>
#include <string>

namespace mur {

std::set<std::string> env_read_by(const Manifest& m);
std::set<std::string> env_needed(const Manifest& m, const StoreRoots& stores);

} // namespace mur
