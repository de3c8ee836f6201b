// mcp_revisions.hpp — the MCP protocol revisions mur speaks, named once for both of its sides: the
// member as a client of a capsule's tool servers (actors/tool_hub.hpp, http/mcp_http_transport.hpp)
// and the agent program's per-turn tool server (http/mcp_server.hpp).
//
// Invariant: `revisions` lists every revision newest first; a revision is a date, so they order
// as strings, and those from `stateless_revision` on carry their version in each request's
// `params._meta[meta_version_key]` instead of an `initialize` handshake.
// Spec: docs/spec/model-and-tool-wire.md (MCP tool server; mur as an MCP client).
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace mur::mcp {

inline constexpr std::array<const char*, 4> revisions{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"};
inline constexpr const char* stateless_revision = "2026-07-28"; // the first without a handshake
inline constexpr const char* handshake_revision = "2025-11-25"; // what a client's initialize asks for
inline constexpr const char* meta_version_key = "io.modelcontextprotocol/protocolVersion";

inline bool known_revision(std::string_view v) {
  return std::any_of(revisions.begin(), revisions.end(), [&](const char* r) { return v == r; });
}
// A known revision of the handshake era (before stateless_revision).
inline bool handshake_era(std::string_view v) { return known_revision(v) && v < std::string_view(stateless_revision); }

} // namespace mur::mcp
