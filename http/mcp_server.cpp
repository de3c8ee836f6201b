// mcp_server.cpp — see mcp_server.hpp.
#include "http/mcp_server.hpp"

#include "messages/vocabulary/comma_list.hpp"
#include "messages/vocabulary/strict_json.hpp"
#include "messages/wire/runtime_tools.hpp"

#include <sodium.h>

#include <algorithm>
#include <cctype>

namespace mur {
namespace {

using json = nlohmann::json;


PlainAnswer json_answer(int status, const json& body) {
  return PlainAnswer{status, {{"Content-Type", "application/json"}}, body.dump(-1, ' ', false, json::error_handler_t::replace)};
}

PlainAnswer http_error(int status, const std::string& message) {
  return json_answer(status, json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32000}, {"message", message}}}});
}

PlainAnswer rpc_result(const json& id, json result) {
  return json_answer(200, json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

// A JSON-RPC error; `status` 400 (or 404) where 2026-07-28 says so, 200 otherwise.
PlainAnswer rpc_error(const json& id, int code, const std::string& message, int status = 200, json data = nullptr) {
  json error{{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = std::move(data);
  return json_answer(status, json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

// The error codes and `_meta` keys of 2026-07-28.
constexpr int header_mismatch = -32020;
constexpr int unsupported_protocol_version = -32022;
constexpr const char* meta_version = mcp::meta_version_key;
constexpr const char* meta_capabilities = "io.modelcontextprotocol/clientCapabilities";
constexpr const char* meta_server_info = "io.modelcontextprotocol/serverInfo";

const json& server_info() {
  static const json info{{"name", "mur"}, {"version", "1"}};
  return info;
}

// http://127.0.0.1[:port], http://localhost[:port], http://[::1][:port] (any scheme).
bool loopback_origin(const std::string& origin) {
  const auto at = origin.find("://");
  if (at == std::string::npos) return false;
  std::string host = origin.substr(at + 3);
  if (host.rfind("[::1]", 0) == 0) return host.size() == 5 || host[5] == ':';
  host = host.substr(0, host.find(':'));
  return host == "127.0.0.1" || PlainRequest::ascii_lower(host) == "localhost";
}

bool same_token(const std::string& a, const std::string& b) {
  return a.size() == b.size() && !a.empty() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool supported_version(const std::string& v) { return mcp::known_revision(v); }

bool stateless_version(const std::string& v) { return supported_version(v) && !mcp::handshake_era(v); }

// The newest handshake version: what initialize answers when the client asks for another.
std::string newest_handshake_version() {
  for (const char* v : mcp_protocol_versions)
    if (!stateless_version(v)) return v;
  return mcp_protocol_versions.back();
}

json versions_json() {
  json out = json::array();
  for (const char* v : mcp_protocol_versions) out.push_back(v);
  return out;
}

std::string versions_text() {
  std::vector<std::string> names(mcp_protocol_versions.begin(), mcp_protocol_versions.end());
  return comma_list(names);
}

PlainAnswer unsupported_version(const json& id, const std::string& requested) {
  return rpc_error(id, unsupported_protocol_version,
                   "unsupported protocol version " + requested.substr(0, 40) + "; this server speaks " + versions_text() +
                     ": send one of them",
                   400, json{{"supported", versions_json()}, {"requested", requested}});
}

// A header's value without the spaces and tabs around it (HTTP's optional whitespace).
std::optional<std::string> header_value(const PlainRequest& r, const char* lowercase_name) {
  const std::string* v = r.header(lowercase_name);
  if (!v) return std::nullopt;
  const auto first = v->find_first_not_of(" \t");
  if (first == std::string::npos) return std::string();
  return v->substr(first, v->find_last_not_of(" \t") - first + 1);
}

// An Mcp-Name value as the client meant it: `=?base64?…?=` decoded, any other value as it is;
// nothing for a sentinel that does not decode.
std::optional<std::string> decoded_name(const std::string& v) {
  const std::string open = "=?base64?", close = "?=";
  if (v.size() < open.size() + close.size() || v.compare(0, open.size(), open) != 0 ||
      v.compare(v.size() - close.size(), close.size(), close) != 0)
    return v;
  const std::string coded = v.substr(open.size(), v.size() - open.size() - close.size());
  std::string out(coded.size(), '\0');
  for (const int variant : {sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING}) {
    std::size_t len = 0;
    if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), coded.data(), coded.size(), nullptr,
                          &len, nullptr, variant) == 0) {
      out.resize(len);
      return out;
    }
  }
  return std::nullopt;
}

// The id of a body the token has admitted, to echo in an error judged before the body is;
// null when it has none that can be read.
json id_of(const std::string& body) {
  auto parsed = parse_strict_json(body);
  if (!parsed || !parsed->is_object() || !parsed->contains("id")) return nullptr;
  const json& id = (*parsed)["id"];
  return id.is_string() || id.is_number_integer() ? id : json(nullptr);
}

// A result of 2026-07-28: complete, and saying whose it is.
json stateless(json result) {
  result["resultType"] = "complete";
  result["_meta"] = json{{meta_server_info, server_info()}};
  return result;
}

// Every tool of the turn: the runtime's, then the capsule's own in their servers' order.
std::vector<FunctionTool> turn_tools(const McpTurn& turn) {
  auto tools = runtime_tools(turn.callees, turn.capsules, turn.ask_operator);
  for (const auto& t : turn.own) tools.push_back(function_tool_of(t));
  return tools;
}

// The instructions of `initialize` and `server/discover` name exactly the tools this turn offers
// (none: they say so).
std::string instructions_for(const McpTurn& turn) {
  std::vector<std::string> own;
  for (const auto& t : turn.own) own.push_back(t.name);
  const std::string own_text = own.empty() ? "" : " The capsule's own tools: " + comma_list(own) + ".";
  std::string named;
  for (const auto& t : runtime_tools(turn.callees, turn.capsules, turn.ask_operator)) {
    named += named.empty() ? "" : "; ";
    if (t.name == tool_name::call_member) named += "call-member gives another member of the formation work";
    else if (t.name == tool_name::delegate) named += "delegate hands a task to a sub-capsule";
    else if (t.name == tool_name::end_without_answer) named += "end-without-answer ends a member's task without an answer";
    else if (t.name == tool_name::ask_operator) named += "ask-operator asks the person operating the formation a question";
    else named += t.name;
  }
  if (named.empty())
    return "This member's turn has no runtime tools: it may call no member and delegate to no capsule." + own_text;
  return "The runtime's tools for this member's turn: " + named + "." + own_text;
}

json tools_json(const McpTurn& turn) {
  json tools = json::array();
  for (const auto& t : turn_tools(turn))
    tools.push_back({{"name", t.name}, {"description", t.description}, {"inputSchema", t.parameters}});
  return tools;
}

} // namespace

std::variant<PlainAnswer, McpCallFor> mcp_step(const PlainRequest& r, const std::vector<McpTurn>& turns) {
  const std::string path = r.target.substr(0, r.target.find('?'));
  if (path != "/mcp") return http_error(404, "not found: the tool server serves /mcp");
  if (r.method != "POST") {
    auto a = http_error(405, "the tool server takes POST only");
    a.headers.emplace_back("Allow", "POST");
    return a;
  }
  if (const std::string* origin = r.header("origin"); origin && !loopback_origin(*origin))
    return http_error(403, "a request from another origin is refused");
  const std::string* auth = r.header("authorization");
  std::optional<std::size_t> turn;
  if (auth && auth->size() > 7 && PlainRequest::ascii_lower(auth->substr(0, 7)) == "bearer ") {
    const std::string token = auth->substr(7);
    for (std::size_t i = 0; i < turns.size(); ++i)
      if (same_token(token, turns[i].token)) turn = i;
  }
  if (!turn) {
    auto a = http_error(401, "this tool server needs the bearer token of a turn that is running");
    a.headers.emplace_back("WWW-Authenticate", "Bearer");
    return a;
  }
  const std::optional<std::string> header_version = header_value(r, "mcp-protocol-version");
  if (header_version && !supported_version(*header_version)) return unsupported_version(id_of(r.body), *header_version);
  if (const std::string* ct = r.header("content-type"); !ct || PlainRequest::ascii_lower(*ct).rfind("application/json", 0) != 0)
    return http_error(415, "the body must be application/json");

  auto parsed = parse_strict_json(r.body);
  if (!parsed) return json_answer(400, json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32700}, {"message", "parse error"}}}});
  const json& msg = *parsed;
  if (!msg.is_object() || msg.value("jsonrpc", json()) != "2.0" || !msg.contains("method") || !msg["method"].is_string())
    return json_answer(400, json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32600}, {"message", "invalid request"}}}});
  const std::string method = msg["method"].get<std::string>();
  if (!msg.contains("id")) return PlainAnswer{202, {}, ""}; // a notification (notifications/initialized, …)
  const json id = msg["id"];
  if (!id.is_string() && !id.is_number_integer())
    return json_answer(400, json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32600}, {"message", "invalid id"}}}});
  const json params = msg.contains("params") ? msg["params"] : json::object();
  if (!params.is_object()) return rpc_error(id, -32602, "params must be an object");
  const McpTurn& this_turn = turns[*turn];

  // The era: a `_meta` version makes the request its version's; the headers must agree with it.
  McpEra era = McpEra::handshake;
  const json meta = params.contains("_meta") && params["_meta"].is_object() ? params["_meta"] : json::object();
  if (meta.contains(meta_version)) {
    if (!meta[meta_version].is_string())
      return rpc_error(id, -32602, std::string("params._meta.") + meta_version + " must be a string such as \"" +
                                     mcp_protocol_versions.front() + "\"", 400);
    const std::string version = meta[meta_version].get<std::string>();
    if (header_version != version)
      return rpc_error(id, header_mismatch,
                       "header mismatch: params._meta names protocol version " + version.substr(0, 40) + " but the MCP-Protocol-Version header " +
                         (header_version ? "is " + header_version->substr(0, 40) : std::string("is missing")) +
                         "; send the same version in both",
                       400);
    // The header named a version of the list (else -32022 above), so this one is too.
    if (stateless_version(version)) era = McpEra::stateless;
  } else if (header_version && stateless_version(*header_version)) {
    return rpc_error(id, -32602,
                     "MCP-Protocol-Version is " + *header_version + " but params._meta has no " + meta_version + "; a " +
                       *header_version + " request names its version and " + meta_capabilities + " in params._meta",
                     400);
  }

  if (era == McpEra::stateless) {
    if (!meta.contains(meta_capabilities) || !meta[meta_capabilities].is_object())
      return rpc_error(id, -32602, std::string("params._meta needs ") + meta_capabilities + " (an object; {} declares none)", 400);
    const std::optional<std::string> header_method = header_value(r, "mcp-method");
    if (header_method != method)
      return rpc_error(id, header_mismatch,
                       "header mismatch: the Mcp-Method header " +
                         (header_method ? "is " + header_method->substr(0, 80) : std::string("is missing")) +
                         " but the body's method is " + method.substr(0, 80) + "; send the body's method in Mcp-Method",
                       400);
    if (method == "server/discover")
      return rpc_result(id, stateless(json{{"supportedVersions", versions_json()},
                                           {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                           {"instructions", instructions_for(this_turn)},
                                           {"ttlMs", 0},
                                           {"cacheScope", "private"}}));
    if (method == "tools/list")
      return rpc_result(id, stateless(json{{"tools", tools_json(this_turn)}, {"ttlMs", 0}, {"cacheScope", "private"}}));
    if (method != "tools/call")
      return rpc_error(id, -32601, "method not found: " + method.substr(0, 80) + "; at " + mcp_protocol_versions.front() +
                                     " this server answers server/discover, tools/list and tools/call",
                       404);
  } else {
    if (method == "server/discover")
      return rpc_error(id, -32602,
                       std::string("server/discover is a ") + mcp_protocol_versions.front() + " request: params._meta needs " +
                         meta_version + " and " + meta_capabilities,
                       400);
    if (method == "initialize") {
      std::string version = newest_handshake_version();
      if (params.contains("protocolVersion") && params["protocolVersion"].is_string()) {
        const std::string asked = params["protocolVersion"].get<std::string>();
        if (supported_version(asked) && !stateless_version(asked)) version = asked;
      }
      return rpc_result(id, json{{"protocolVersion", version},
                                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                 {"serverInfo", server_info()},
                                 {"instructions", instructions_for(this_turn)}});
    }
    if (method == "ping") return rpc_result(id, json::object());
    if (method == "tools/list") return rpc_result(id, json{{"tools", tools_json(this_turn)}});
    if (method != "tools/call") return rpc_error(id, -32601, "method not found: " + method.substr(0, 80));
  }

  // tools/call, in either era.
  if (!params.contains("name") || !params["name"].is_string()) return rpc_error(id, -32602, "tools/call needs a name");
  const std::string name = params["name"].get<std::string>();
  if (era == McpEra::stateless) {
    const std::optional<std::string> header_name = header_value(r, "mcp-name");
    const std::optional<std::string> named = header_name ? decoded_name(*header_name) : std::nullopt;
    if (named != name)
      return rpc_error(id, header_mismatch,
                       "header mismatch: the Mcp-Name header " +
                         (header_name ? (named ? "is " + named->substr(0, 80) : std::string("does not decode")) : std::string("is missing")) +
                         " but the tool called is " + name.substr(0, 80) + "; send the tool's name in Mcp-Name",
                       400);
  }
  const auto tools = turn_tools(this_turn);
  if (std::none_of(tools.begin(), tools.end(), [&](const FunctionTool& t) { return t.name == name; })) {
    std::vector<std::string> names;
    for (const auto& t : tools) names.push_back(t.name);
    return rpc_error(id, -32602, "unknown tool: " + name.substr(0, 80) + "; this turn's tools are " +
                                   (names.empty() ? std::string("none") : comma_list(names)));
  }
  json args = params.contains("arguments") ? params["arguments"] : json::object();
  McpCallFor out;
  out.turn = *turn;
  out.call.id = id;
  out.call.era = era;
  out.call.call = ToolCall{"mcp_" + (id.is_string() ? id.get<std::string>() : std::to_string(id.get<std::int64_t>())), name,
                           args.dump(-1, ' ', false, json::error_handler_t::replace)};
  return out;
}

PlainAnswer mcp_tool_answer(const McpToolCall& call, const ToolReply& reply) {
  json result{{"content", json::array({json{{"type", "text"}, {"text", reply.text}}})}, {"isError", reply.is_error}};
  return rpc_result(call.id, call.era == McpEra::stateless ? stateless(std::move(result)) : std::move(result));
}

} // namespace mur
