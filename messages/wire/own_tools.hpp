// own_tools.hpp — a capsule's own tools (its MCP tool servers, manifest key `tools`) and the
// lines between the member's MCP client (actors/tool_hub.hpp) and each server's transport.
//
// Invariant: a tool of the capsule's own reaches the model as `<server>__<tool>`, with the
// description and input schema its server listed, beside the runtime's tools and never in their
// place (a server cannot list call-member: its names always hold `__`). A transport carries
// whole JSON-RPC lines, one message each, in the order they came; it tells the hub once that
// its server ended, with why (its exit and the tail of its stderr, secrets written out).
// Rule: docs/spec/choices.md §Tool servers.
#pragma once

#include "messages/vocabulary/message_fields.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct OwnTool {
  std::string name;         // <server>__<tool>
  std::string description;
  std::string input_schema; // a JSON Schema object, as JSON text
  MUR_FIELDS(name, description, input_schema)
};

// What the hub answers once every server is listed, or one of them could not be.
struct ToolsListed {
  std::vector<OwnTool> tools; // server by server, in manifest order, each in its listing order
  std::string code;           // "" when every server is ready: else the refusal (E-TOOL-001),
  std::string failure;        // why the first server that failed did not start,
  std::string fix;            // and what to do about it
  MUR_FIELDS(tools, code, failure, fix)
};

// hub → transport: start the server; its lines are then sent as server `server`.
struct McpOpen {
  std::int32_t server = 0;
  MUR_FIELDS(server)
};

// One JSON-RPC message, either way.
struct McpLine {
  std::int32_t server = 0;
  std::string line;
  MUR_FIELDS(server, line)
};

// transport → hub, once: the server's process ended (or never started).
struct McpServerEnded {
  std::int32_t server = 0;
  std::string why;
  MUR_FIELDS(server, why)
};

} // namespace mur
