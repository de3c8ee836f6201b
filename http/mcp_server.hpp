// mcp_server.hpp — the loopback tool server's protocol: MCP over Streamable HTTP (protocol
// 2025-11-25), as pure functions from one HTTP request to its answer or to the one tool call it
// asks for. No I/O, no clock, no state: the caller (member/harness_model.cpp) holds the live
// turns and their tokens.
//
// Invariant: the order of judgement is fixed — path (/mcp, else 404), method (POST, else 405),
// Origin (absent, or a loopback origin, else 403), the bearer token (the turn's, compared in
// constant time, else 401 with a challenge) — and only then is the body parsed (bounded in
// depth, strict_json): a request without the turn's token never has its body read. An
// unsupported MCP-Protocol-Version is 400. The turn's tools are the runtime's (runtime_tools.hpp)
// and the capsule's own tools, proxied under the same `<server>__<tool>` names an http model is
// offered, so both transports see one tool set: `tools/list` lists exactly them, a call to another
// name is JSON-RPC -32602 naming the ones there are; a tool's own failure is `isError: true` with
// its text, as MCP says.
// Spec: docs/spec/model-and-tool-wire.md §MCP tool server; docs/spec/choices.md §Agent programs;
// docs/harness.md.
#pragma once

#include "http/loopback_listener.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/own_tools.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mur {

inline constexpr const char* mcp_protocol_version = "2025-11-25";

// The turn a request is judged against: its token and the tools it may use.
struct McpTurn {
  std::string token;                 // the per-turn bearer (never printed)
  std::vector<std::string> callees;  // call-member's enum
  std::vector<std::string> capsules; // delegate's enum (both empty ⇒ no runtime tools)
  std::vector<OwnTool> own;          // the capsule's own tools (<server>__<tool>), beside them
};

// A tools/call to answer once the task has its result: the JSON-RPC id and the call.
struct McpToolCall {
  nlohmann::json id;
  ToolCall call;
};

// `turns` are the live ones; the answer, or the tool call (and which turn it belongs to).
struct McpCallFor {
  std::size_t turn = 0; // index into `turns`
  McpToolCall call;
};
std::variant<PlainAnswer, McpCallFor> mcp_step(const PlainRequest& request, const std::vector<McpTurn>& turns);

// The HTTP answer to a tools/call, from the task's reply.
PlainAnswer mcp_tool_answer(const nlohmann::json& id, const ToolReply& reply);

} // namespace mur
