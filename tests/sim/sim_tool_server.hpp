// sim_tool_server.hpp — a simulated MCP tool server behind the mcp_transport port, for the tool
// hub under the deterministic scheduler: it answers initialize and tools/list with the tools it
// is given, and each tools/call as its tool's behaviour says.
#pragma once

#include "actors/ports.hpp"

#include <caf/fwd.hpp>

#include <map>
#include <string>

namespace mur::sim {

// What a tool does when called: "echo" answers "<tool> got <arguments>", "error" answers with
// isError, "hang" never answers, "die" ends the server; "refuse" answers a JSON-RPC error;
// "change" removes itself, adds an "echo" tool named "extra", sends
// notifications/tools/list_changed and then answers "changed"; "change_then_mute" says its tools
// changed, answers "changed", and never answers tools/list again.
using SimTools = std::map<std::string, std::string>; // tool → behaviour

struct SimToolServerLog {
  std::vector<std::string> lines; // every line the hub sent, in order
  int opens = 0;                  // how often it was opened (started)
};

// Which MCP era it speaks: legacy (2025-11-25: server/discover is -32601, as for any method it
// does not know), modern (2026-07-28: it answers server/discover, needs no handshake), or legacy
// and mute to anything before its handshake (it never answers the probe).
// dies_at_discover: a legacy server that ends at the probe (and, opened again, serves).
enum class SimEra { legacy, modern, mute_before_initialize, dies_at_discover };

// `silent`: answers nothing at all (a server that never finishes starting).
mcp_transport spawn_sim_tool_server(caf::actor_system& sys, SimTools tools, bool silent = false,
                                    SimEra era = SimEra::legacy);

// The lines the server got (the actor must be a sim tool server).
const SimToolServerLog& sim_tool_server_log(const mcp_transport& server);

} // namespace mur::sim
