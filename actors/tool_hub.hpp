// tool_hub.hpp — the member's MCP client: one actor for all of a capsule's tool servers.
//
// Invariant: each server is started once per member session and probed with `server/discover`
// (its `_meta` naming 2026-07-28): a server that lists 2026-07-28 is spoken to statelessly, every
// request naming that revision in `_meta`; any error, or no answer within discover_timeout, means
// the legacy era: `initialize` (2025-11-25) and `notifications/initialized`; a server that ends at
// the probe is opened once more (a new process, for stdio) and greeted with `initialize`. Then `tools/list`
// page by page; tools_atom is answered once every server is ready or one of them
// failed to start (E-TOOL-001, within start_timeout). A call goes to the server its name
// `<server>__<tool>` names, at most calls_at_once per server at a time (the rest wait in order),
// and is answered exactly once: with the server's result, or a tool error when the server ended
// (E-TOOL-002), passed the call's timeout (E-TOOL-003, and the server is told the call is
// cancelled) or never listed that tool. Nothing a server writes reaches the model but a call's
// result (its texts and error texts with its secrets written out); a request a server makes of the client is answered (ping) or refused (-32601). A ready
// server's notifications/tools/list_changed has its list read again (every page), and the new
// list replaces the old one whole once read: tools_atom answers it from then on (each model turn
// asks), and a call to a tool no longer listed is a tool error.
// Rule: docs/spec/choices.md §Tool servers.
#pragma once

#include "actors/ports.hpp"
#include "messages/vocabulary/secret_redaction.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct ToolServerSetup {
  std::string name;                                // [a-z0-9-]{1,32}
  std::optional<std::vector<std::string>> allow;   // only these of its tools
  std::chrono::milliseconds call_timeout{120'000}; // timeout_secs
  mcp_transport transport;
  SecretRedaction secrets;                         // its env values and header values: written out of
                                                   // every error text and result it sends
};

struct ToolHubSetup {
  std::vector<ToolServerSetup> servers;            // manifest order
  std::chrono::milliseconds start_timeout{30'000}; // the probe, initialize and every tools/list page
  std::chrono::milliseconds discover_timeout{5'000}; // a probe unanswered this long: the legacy era
  int calls_at_once = 4;                           // per server
  trace_port trace;                                // tool_server_ready / tool_server_ended (may be null)
};

using tool_hub = tool_port::extend<caf::reacts_to<McpLine>, caf::reacts_to<McpServerEnded>,
                                   caf::reacts_to<tool_timeout_atom, std::int32_t, std::int64_t>>;

// Spawns the hub; it opens every transport at once.
tool_port spawn_tool_hub(caf::actor_system& sys, ToolHubSetup setup);

} // namespace mur
