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

PlainAnswer rpc_error(const json& id, int code, const std::string& message) {
  return json_answer(200, json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
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

bool supported_version(const std::string& v) {
  return v == mcp_protocol_version || v == "2025-06-18" || v == "2025-03-26";
}

// Every tool of the turn: the runtime's, then the capsule's own in their servers' order.
std::vector<FunctionTool> turn_tools(const McpTurn& turn) {
  auto tools = runtime_tools(turn.callees, turn.capsules);
  for (const auto& t : turn.own) tools.push_back(function_tool_of(t));
  return tools;
}

// The `initialize` instructions name exactly the tools this turn offers (none: it says so).
std::string instructions_for(const McpTurn& turn) {
  std::vector<std::string> own;
  for (const auto& t : turn.own) own.push_back(t.name);
  const std::string own_text = own.empty() ? "" : " The capsule's own tools: " + comma_list(own) + ".";
  std::string named;
  for (const auto& t : runtime_tools(turn.callees, turn.capsules)) {
    named += named.empty() ? "" : "; ";
    if (t.name == tool_name::call_member) named += "call-member gives another member of the formation work";
    else if (t.name == tool_name::delegate) named += "delegate hands a task to a sub-capsule";
    else if (t.name == tool_name::end_without_answer) named += "end-without-answer ends a member's task without an answer";
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
  if (const std::string* v = r.header("mcp-protocol-version"); v && !supported_version(*v))
    return http_error(400, "unsupported MCP-Protocol-Version " + v->substr(0, 40) + "; this server speaks " +
                             mcp_protocol_version);
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

  if (method == "initialize") {
    std::string version = mcp_protocol_version;
    if (params.contains("protocolVersion") && params["protocolVersion"].is_string() &&
        supported_version(params["protocolVersion"].get<std::string>()))
      version = params["protocolVersion"].get<std::string>();
    return rpc_result(id, json{{"protocolVersion", version},
                               {"capabilities", {{"tools", {{"listChanged", false}}}}},
                               {"serverInfo", {{"name", "mur"}, {"version", "1"}}},
                               {"instructions", instructions_for(turns[*turn])}});
  }
  if (method == "ping") return rpc_result(id, json::object());
  if (method == "tools/list") return rpc_result(id, json{{"tools", tools_json(turns[*turn])}});
  if (method == "tools/call") {
    if (!params.contains("name") || !params["name"].is_string()) return rpc_error(id, -32602, "tools/call needs a name");
    const std::string name = params["name"].get<std::string>();
    const auto tools = turn_tools(turns[*turn]);
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
    out.call.call = ToolCall{"mcp_" + (id.is_string() ? id.get<std::string>() : std::to_string(id.get<std::int64_t>())), name,
                             args.dump(-1, ' ', false, json::error_handler_t::replace)};
    return out;
  }
  return rpc_error(id, -32601, "method not found: " + method.substr(0, 80));
}

PlainAnswer mcp_tool_answer(const nlohmann::json& id, const ToolReply& reply) {
  return rpc_result(id, json{{"content", json::array({json{{"type", "text"}, {"text", reply.text}}})}, {"isError", reply.is_error}});
}

} // namespace mur
