// stdio_tool_server.hpp — the real mcp_transport: one MCP tool server of the capsule, a child
// process spoken to in JSON-RPC lines over its stdin and stdout (os/stdio_process.hpp).
//
// Invariant: the server starts when the hub opens it (McpOpen) — once, or once more after it
// ended, never two at once — in the member's program
// directory under the same isolation as an agent program, with the environment of
// member/program_env.hpp (no MURMUR_*, no formation token, no door URL); it ends with this actor
// (the member's session), and with the member's process group. Every line it writes goes to the
// opener in order; its end is told once, with its stderr tail cleaned and its secrets written out.
// Rule: docs/spec/choices.md §Tool servers.
#pragma once

#include "actors/ports.hpp"
#include "messages/vocabulary/secret_redaction.hpp"
#include "os/member_cgroup.hpp"
#include "os/stdio_process.hpp"

#include <caf/fwd.hpp>

namespace mur {

struct StdioToolServerSetup {
  StdioStart start;
  SecretRedaction secrets; // the values its env read from ${…}
  std::string name;        // tools[].name, to name it when its member's limits end it
  MemberCgroup limits;     // the member's group (member/member_limits.hpp)
  ResourceBounds bounds;   // its capabilities.limits
};

mcp_transport spawn_stdio_tool_server(caf::actor_system& sys, StdioToolServerSetup setup);

} // namespace mur
