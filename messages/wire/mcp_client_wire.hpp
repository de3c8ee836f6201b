// mcp_client_wire.hpp — what the member's MCP client writes to a tool server and how it reads
// what the server writes back: JSON-RPC 2.0, one message per line (the stdio transport).
//
// Invariant: every line a server writes is read by read_mcp_line alone, with the depth bound of
// strict_json; no line crashes the reader or grows it past the line it was given (a line that is
// not one JSON-RPC message is `invalid`). A listed tool is offered only when its name fits the
// model-facing name `<server>__<tool>` (1–64 of [A-Za-z0-9_-] in all) and, with an allow list,
// only when the list names it. A call's result becomes the tool message the model reads: its text
// parts in order, every other part summarised by its type and size (never its bytes), cut at the
// answer cap; `isError` is kept.
// Rule: docs/spec/choices.md §Tool servers; docs/spec/model-and-tool-wire.md (the MCP wire facts).
#pragma once

#include "messages/wire/mcp_revisions.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/own_tools.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mur::mcp_client {

// The MCP revision the client asks for in `initialize` (the legacy era, with its handshake).
inline constexpr const char* protocol_version = mcp::handshake_revision;
// The stateless revision: no handshake; every request names it in `params._meta`. The client
// probes for it with server/discover first and falls back to `initialize` on any error.
inline constexpr const char* modern_version = mcp::stateless_revision;
inline constexpr const char* meta_version_key = mcp::meta_version_key;

// One line to a server (no trailing newline).
std::string request(std::int64_t id, const std::string& method, const nlohmann::json& params);
std::string notification(const std::string& method, const nlohmann::json& params);
std::string result(const nlohmann::json& id, const nlohmann::json& result);
std::string error(const nlohmann::json& id, int code, const std::string& message);
std::string initialize_request(std::int64_t id);
// `params` (an object, or null for none) with the modern era's `_meta`: its version, the client's
// capabilities (none) and who it is.
nlohmann::json modern_params(nlohmann::json params);
// True when a server/discover result lists modern_version among its supportedVersions.
bool discover_says_modern(const nlohmann::json& result);

// One line from a server.
struct Message {
  enum class Kind { response, error, request, notification, invalid } kind = Kind::invalid;
  std::optional<std::int64_t> id; // a response's (only whole-number ids are ours)
  nlohmann::json raw_id;          // a request's id, as sent
  std::string method;             // request, notification
  nlohmann::json result;          // response
  std::string error_text;         // error: "message (code N)"; invalid: why
};
Message read_line(const std::string& line);

// A tools/list result: the tools offered (allow applied), the cursor of the next page, and what
// was left out and why (for the trace).
struct ToolPage {
  std::vector<OwnTool> tools;
  std::vector<std::string> bare_names; // the server's own names of `tools`, in the same order
  std::optional<std::string> next_cursor;
  std::vector<std::string> left_out;   // "name: why"
};
ToolPage read_tool_page(const std::string& server, const nlohmann::json& result,
                        const std::vector<std::string>* allow);

// A tools/call result as the model reads it (a 2026-07-28 `resultType: input_required` asks for
// input the client cannot give: a tool error saying so).
ToolReply read_call_result(const nlohmann::json& result);

} // namespace mur::mcp_client
