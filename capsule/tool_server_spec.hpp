// tool_server_spec.hpp — the MCP tool servers a capsule declares (top-level key `tools`), as read
// from murmur.yaml.
//
// Invariant: each server has a unique name of 1–32 of [a-z0-9-] (the model sees its tools as
// `<name>__<tool>`), exactly one way to reach it — `command` (a stdio server this member starts)
// or `url` (a streamable HTTP server: `http://` only on a loopback host or with
// `allow_insecure_http: true`, else `https://`; never a
// formation's virtual address, which only call-member reaches) — an `env` (stdio only) of the
// same rules as inference.env (names of letters, digits and _, never MURMUR_*, values literal or
// `${NAME}` alone), `headers` (url only: HTTP header names of their own, values of printable text
// in which each `${NAME}` is read from the member's environment; never a header the runtime sets),
// an optional non-empty `allow` list of tool names and a call timeout of 1–86,400 s (120 by
// default). Every refusal is E-MAN-002 naming the key path.
// Rule: docs/spec/choices.md §Tool servers.
#pragma once

#include "messages/vocabulary/model_endpoint.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mur {

namespace yaml {
class Value;
}

struct ToolServerSpec {
  std::string name;
  std::vector<std::string> command;                     // argv of a stdio server (or empty)
  std::string url;                                      // a streamable HTTP server (or empty)
  ModelEndpoint endpoint;                               // url, parsed (insecure: allow_insecure_http)
  std::vector<std::pair<std::string, std::string>> env; // in file order
  std::vector<std::pair<std::string, std::string>> headers; // url only, in file order
  std::optional<std::vector<std::string>> allow;        // only these of its tools
  int timeout_secs = 120;                               // per call
};

// The `tools` list (the key's value).
std::vector<ToolServerSpec> parse_tool_servers(const yaml::Value& v);

// The headers mur sets itself on a streamable HTTP request, which `headers` may not name
// (lower case): content-type, accept, host, content-length, mcp-session-id, mcp-protocol-version…
bool runtime_header(const std::string& lower_name);

// An `env` mapping (inference.env, tools[].env): name → value, in file order.
std::vector<std::pair<std::string, std::string>> parse_env_map(const yaml::Value& v);

} // namespace mur
