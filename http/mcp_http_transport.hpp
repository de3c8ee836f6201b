// mcp_http_transport.hpp — the other real mcp_transport: one MCP tool server the capsule names by
// `url`, spoken to over the streamable HTTP transport (MCP 2025-11-25) through the process's
// CurlPool.
//
// Invariant: each line the hub writes is POSTed on its own (Accept: application/json,
// text/event-stream), in the hub's order: nothing is sent while initialize or a notification is
// out (requests may then run side by side, as calls do); every message the server answers with — a JSON body, or
// each event of an SSE stream — goes to the opener as one McpLine, in the order it came. Nothing
// is sent while `initialize` is out: lines wait for its answer, whose Mcp-Session-Id and
// protocol version every later request carries. A 2026-07-28 request (its revision in `_meta`)
// carries that revision, its method and name as headers instead, and no session. A request whose POST brought no answer for its id
// (the server could not be reached, answered 4xx/5xx, or closed the stream first) is answered to
// the hub as a JSON-RPC error naming why, so no call waits for ever; an `initialize` that fails
// ends the server (McpServerEnded), as does a 404 for its session (the server dropped it). Once
// initialized, one GET stream listens for what the server sends unasked
// (notifications/tools/list_changed); a 405 means it sends nothing so. The headers (values that
// may hold keys) are handed only to libcurl; the server's error texts are quoted with them
// written out. When the actor ends (with the hub: the member's session), every open request is
// cancelled and a session the server gave is DELETEd.
// Rule: docs/spec/choices.md §Tool servers; docs/spec/model-and-tool-wire.md (streamable HTTP).
#pragma once

#include "actors/ports.hpp"
#include "http/curl_pool.hpp"
#include "messages/vocabulary/secret_redaction.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mur {

struct McpHttpSetup {
  std::string url;                           // the endpoint, as tools[].url gives it (checked)
  std::vector<std::string> headers;          // "Name: value", the manifest's, values filled in
  std::chrono::milliseconds call_timeout{120'000}; // the longest any one POST may take, less a margin
  SecretRedaction secrets;                   // the header values
  std::shared_ptr<CurlPool> pool;
};

mcp_transport spawn_mcp_http_transport(caf::actor_system& sys, McpHttpSetup setup);

} // namespace mur
