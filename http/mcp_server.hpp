// mcp_server.hpp — the loopback tool server's protocol: MCP over Streamable HTTP, as pure
// functions from one HTTP request to its answer or to the one tool call it asks for. No I/O, no
// clock, no state: the caller (member/harness_model.cpp) holds the live turns and their tokens.
// It is dual-era: protocol 2026-07-28 statelessly, per request, and the handshake revisions
// 2025-11-25, 2025-06-18 and 2025-03-26 as before; `mcp_protocol_versions` is the one list of
// them, used wherever the server names what it speaks.
//
// Invariant: the order of judgement is fixed — path (/mcp, else 404), method (POST, else 405),
// Origin (absent, or a loopback origin, else 403), the bearer token (the turn's, compared in
// constant time, else 401 with a challenge) — and only then is the body read (bounded in
// depth, strict_json): a request without the turn's token never has its body read. After the
// token, still before the body is judged: an MCP-Protocol-Version header naming a version not in
// the list is 400, JSON-RPC -32022 (UnsupportedProtocolVersion) with `data: {supported,
// requested}` (the body read only for the id to echo), and a body that is not application/json
// is 415. The turn's tools are the runtime's (runtime_tools.hpp) and the
// capsule's own tools, proxied under the same `<server>__<tool>` names an http model is offered,
// so both transports see one tool set: `tools/list` lists exactly them, a call to another name is
// JSON-RPC -32602 naming the ones there are; a tool's own failure is `isError: true` with its
// text, as MCP says.
//
// The era is the request's own, never a session's: a request whose `params._meta` names
// `io.modelcontextprotocol/protocolVersion` 2026-07-28 is served statelessly —
//   - its MCP-Protocol-Version header must be there and name the same version, and its Mcp-Method
//     header the body's method (a tools/call's Mcp-Name its tool, `=?base64?…?=` decoded, spaces
//     around a value trimmed): else 400, -32020 (HeaderMismatch). Headers are judged before the
//     version (a `_meta` version that the header contradicts is -32020, not -32022);
//   - a `_meta` version not in the list is 400, -32022; `_meta` without
//     `io.modelcontextprotocol/clientCapabilities` (an object) is 400, -32602 (clientInfo is
//     optional). No tool here needs a client capability, so -32021 is never the answer;
//   - `server/discover`, `tools/list` and `tools/call` are served; every result carries
//     `resultType: "complete"` and `_meta` `io.modelcontextprotocol/serverInfo`; the discover and
//     list results also `ttlMs: 0, cacheScope: "private"` (a turn's tools are its token's);
//   - any other method — initialize, ping, logging/setLevel among them — is 404, -32601.
// A request without that `_meta` version is the handshake era, answered as 2025-11-25 says
// (initialize, notifications → 202, ping, tools/list, tools/call; Mcp-* headers unread); its
// initialize negotiates a handshake version only, never 2026-07-28. A `_meta` naming a handshake
// version is that era too (after the header check). `server/discover` there, or an
// MCP-Protocol-Version of 2026-07-28 on a body without the `_meta` version, is 400, -32602: the
// request lacks what 2026-07-28 requires. Errors of the stateless era echo the request's id
// (the -32022 of the header too, read from the body once the token has been judged).
// Spec: docs/spec/model-and-tool-wire.md §MCP tool server; docs/spec/choices.md §Agent programs;
// docs/harness.md.
#pragma once

#include "http/loopback_listener.hpp"
#include "messages/wire/mcp_revisions.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/own_tools.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mur {

// Every version this server speaks, newest first; the stateless ones are those from
// mcp_first_stateless_version on (messages/wire/mcp_revisions.hpp names them for both sides).
inline constexpr const auto& mcp_protocol_versions = mcp::revisions;
inline constexpr const char* mcp_first_stateless_version = mcp::stateless_revision;

// Which era a request is served in: its answer's shape follows it.
enum class McpEra { handshake, stateless };

// The turn a request is judged against: its token and the tools it may use.
struct McpTurn {
  std::string token;                 // the per-turn bearer (never printed)
  std::vector<std::string> callees;  // call-member's enum
  std::vector<std::string> capsules; // delegate's enum (both empty ⇒ no runtime tools)
  std::vector<OwnTool> own;          // the capsule's own tools (<server>__<tool>), beside them
  bool ask_operator = false;         // ask-operator is offered (capabilities.ask_operator)
};

// A tools/call to answer once the task has its result: the JSON-RPC id and the call.
struct McpToolCall {
  nlohmann::json id;
  ToolCall call;
  McpEra era = McpEra::handshake;
};

// `turns` are the live ones; the answer, or the tool call (and which turn it belongs to).
struct McpCallFor {
  std::size_t turn = 0; // index into `turns`
  McpToolCall call;
};
std::variant<PlainAnswer, McpCallFor> mcp_step(const PlainRequest& request, const std::vector<McpTurn>& turns);

// The HTTP answer to a tools/call, from the task's reply, shaped for the call's era.
PlainAnswer mcp_tool_answer(const McpToolCall& call, const ToolReply& reply);

} // namespace mur
