// connection_ceiling.hpp — how many connections one listener keeps open at once.
//
// Invariant: a listener never holds more than its ceiling of connections; one past it is
// closed at once (accepted, then shut), and accepting resumes by itself as connections end.
// The ceiling sits below the process's descriptor limit with room to spare (`fd_reserve` for
// trace files, pipes, model and peer connections, the turn's tool server), so accept(2) never
// fails with EMFILE — RESTinio 0.6.16 drops its accept slot for good when it does, and the
// door would never accept again.
// A door's ceiling is `MURMUR_MAX_CONNECTIONS` when set (1 … limit − reserve; anything else
// is E-RUN-054), else min(256, (limit − reserve) / 2). docs/errors.md (E-RUN-054) and
// docs/ARCHITECTURE.md ("Bounds") give the numbers.
// Rule: a door keeps accepting for as long as its session runs, whoever else connects
// (docs/spec/choices.md §Hostile input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace mur {

inline constexpr std::uint64_t fd_reserve = 128;           // descriptors kept for all but listeners
inline constexpr std::size_t default_door_connections = 256;
inline constexpr std::size_t tool_server_connections = 32;  // the turn's MCP server: one program
inline constexpr std::size_t view_server_connections = 64;  // mur view: a few pages

// The door's ceiling for a process whose soft descriptor limit is `fd_limit`, given the text of
// MURMUR_MAX_CONNECTIONS (nullopt: unset). Throws mur::Failure E-RUN-054 for a bad value.
std::size_t door_connection_ceiling(std::uint64_t fd_limit, const std::optional<std::string>& configured);

// The same, reading MURMUR_MAX_CONNECTIONS from the environment.
std::size_t door_connection_ceiling(std::uint64_t fd_limit);

// A fixed ceiling (tool server, view) kept below what the limit allows.
std::size_t bounded_ceiling(std::size_t wanted, std::uint64_t fd_limit);

} // namespace mur
