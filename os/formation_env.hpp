// formation_env.hpp — what a member learns from its environment about its formation.
//
// Invariant: MURMUR_FORMATION_ID, MURMUR_FORMATION_CHANNEL and MURMUR_FORMATION_LIFELINE are read
// once per process. The id is `frm_` + 32 lowercase hex (else E-RUN-044, value never echoed);
// each fd is decimal digits, ≥ 3, open, the read end of a pipe (the channel may also be a regular
// file), and is made close-on-exec before anything else can spawn (else E-RUN-046). An fd set
// without an id is E-RUN-046. Blank counts as unset.
// Rule: MURMUR_FORMATION_CHANNEL names the inherited fd a member reads its channel from
// (docs/spec/door.md §The formation channel).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace mur {

struct FormationEnv {
  std::string formation_id;
  std::optional<int> channel_fd;  // validated, close-on-exec
  std::optional<int> lifeline_fd; // validated, close-on-exec
};

// `lookup` returns a variable's value or nullptr. nullopt when no formation id is set.
// Throws mur::Failure (E-RUN-044 / E-RUN-046).
std::optional<FormationEnv> read_formation_env(
    const std::function<const char*(const char*)>& lookup);

// A delegated child's spawner lifeline: the read end of a pipe whose only write end its parent's
// process holds (docs/spec/door.md §The lifeline: never mixed with the formation lifeline).
inline constexpr const char* SPAWNER_LIFELINE_ENV = "MURMUR_SPAWNER_LIFELINE";

// MURMUR_SPAWNER_LIFELINE validated as a lifeline (digits, ≥ 3, open, a pipe's read end; made
// close-on-exec), or nullopt when blank or unset. Throws mur::Failure E-RUN-046.
std::optional<int> read_spawner_lifeline(const std::function<const char*(const char*)>& lookup);

// The process environment, read once: a second call throws E-RUN-046.
std::optional<FormationEnv> read_formation_env_once();

} // namespace mur
