// mcp_client_wire.cpp — see mcp_client_wire.hpp.
#include "messages/wire/mcp_client_wire.hpp"

#include "messages/vocabulary/strict_json.hpp"
#include "messages/vocabulary/text_cut.hpp"

#include <algorithm>

namespace mur::mcp_client {

namespace {

using json = nlohmann::json;

std::string line_of(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

bool fits_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

std::string string_at(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A content part that is not text, as one line: its type, its MIME type and its size.
std::string summary_of(const json& part) {
  const std::string type = part.is_object() ? string_at(part, "type") : std::string();
  std::string out = "[" + (type.empty() ? std::string("content") : type);
  if (part.is_object()) {
    if (auto mime = string_at(part, "mimeType"); !mime.empty()) out += " " + mime;
    if (auto data = string_at(part, "data"); !data.empty())
      out += ", " + std::to_string(data.size() * 3 / 4) + " bytes";
    if (part.contains("resource") && part["resource"].is_object()) {
      const json& r = part["resource"];
      if (auto uri = string_at(r, "uri"); !uri.empty()) out += " " + uri;
      if (auto text = string_at(r, "text"); !text.empty()) return out + "]\n" + text;
      if (auto blob = string_at(r, "blob"); !blob.empty()) out += ", " + std::to_string(blob.size() * 3 / 4) + " bytes";
    }
    if (auto uri = string_at(part, "uri"); !uri.empty()) out += " " + uri;
  }
  return out + "]";
}

} // namespace

std::string request(std::int64_t id, const std::string& method, const json& params) {
  return line_of({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
}

std::string notification(const std::string& method, const json& params) {
  json j{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) j["params"] = params;
  return line_of(j);
}

std::string result(const json& id, const json& r) { return line_of({{"jsonrpc", "2.0"}, {"id", id}, {"result", r}}); }

std::string error(const json& id, int code, const std::string& message) {
  return line_of({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

std::string initialize_request(std::int64_t id) {
  return request(id, "initialize",
                 {{"protocolVersion", protocol_version},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "mur"}, {"version", "1"}}}});
}

json modern_params(json params) {
  if (!params.is_object()) params = json::object();
  json& meta = params["_meta"]; // a caller's own _meta keys (traceparent) stay
  if (!meta.is_object()) meta = json::object();
  meta[meta_version_key] = modern_version;
  meta["io.modelcontextprotocol/clientCapabilities"] = json::object();
  meta["io.modelcontextprotocol/clientInfo"] = {{"name", "mur"}, {"version", "1"}};
  return params;
}

bool discover_says_modern(const json& result) {
  if (!result.is_object()) return false;
  auto it = result.find("supportedVersions");
  if (it == result.end() || !it->is_array()) return false;
  return std::any_of(it->begin(), it->end(), [](const json& v) { return v.is_string() && v.get<std::string>() == modern_version; });
}

Message read_line(const std::string& line) {
  Message m;
  auto parsed = parse_strict_json(line);
  if (!parsed || !parsed->is_object()) {
    m.error_text = "not a JSON object";
    return m;
  }
  const json& j = *parsed;
  if (string_at(j, "jsonrpc") != "2.0") {
    m.error_text = "not JSON-RPC 2.0";
    return m;
  }
  const auto id = j.find("id");
  const bool has_id = id != j.end() && !id->is_null();
  if (has_id && id->is_number_integer()) m.id = id->get<std::int64_t>();
  if (auto method = j.find("method"); method != j.end()) {
    if (!method->is_string()) {
      m.error_text = "a method that is not a string";
      return m;
    }
    m.method = method->get<std::string>();
    m.kind = has_id ? Message::Kind::request : Message::Kind::notification;
    if (has_id) m.raw_id = *id;
    return m;
  }
  if (!has_id) {
    m.error_text = "a response without an id";
    return m;
  }
  if (auto e = j.find("error"); e != j.end()) {
    m.kind = Message::Kind::error;
    const std::string message = e->is_object() ? string_at(*e, "message") : std::string();
    m.error_text = (message.empty() ? std::string("an error") : message);
    if (e->is_object() && e->contains("code") && (*e)["code"].is_number_integer())
      m.error_text += " (code " + std::to_string((*e)["code"].get<std::int64_t>()) + ")";
    return m;
  }
  if (auto r = j.find("result"); r != j.end()) {
    m.kind = Message::Kind::response;
    m.result = *r;
    return m;
  }
  m.error_text = "a response with neither result nor error";
  return m;
}

ToolPage read_tool_page(const std::string& server, const json& result, const std::vector<std::string>* allow) {
  ToolPage page;
  if (!result.is_object()) return page;
  if (auto c = result.find("nextCursor"); c != result.end() && c->is_string() && !c->get<std::string>().empty())
    page.next_cursor = c->get<std::string>();
  auto tools = result.find("tools");
  if (tools == result.end() || !tools->is_array()) return page;
  for (const auto& t : *tools) {
    const std::string bare = t.is_object() ? string_at(t, "name") : std::string();
    if (bare.empty()) {
      page.left_out.push_back("(a tool without a name)");
      continue;
    }
    if (allow && std::find(allow->begin(), allow->end(), bare) == allow->end()) continue;
    const std::string name = server + "__" + bare;
    if (!fits_name(name)) {
      page.left_out.push_back(bare + ": '" + name + "' is not a function name (1-64 of A-Z a-z 0-9 _ -)");
      continue;
    }
    json schema = t.contains("inputSchema") && t["inputSchema"].is_object() ? t["inputSchema"]
                                                                             : json{{"type", "object"}};
    page.tools.push_back(OwnTool{name, string_at(t, "description"), line_of(schema)});
    page.bare_names.push_back(bare);
  }
  return page;
}

ToolReply read_call_result(const json& result) {
  ToolReply reply;
  if (!result.is_object()) {
    reply.text = "tool error: the tool server's result was not an object.";
    reply.is_error = true;
    return reply;
  }
  if (string_at(result, "resultType") == "input_required") {
    reply.text = "tool error: the tool asked for input (input_required), which mur's client cannot give.";
    reply.is_error = true;
    return reply;
  }
  reply.is_error = result.contains("isError") && result["isError"].is_boolean() && result["isError"].get<bool>();
  std::string text;
  if (auto content = result.find("content"); content != result.end() && content->is_array()) {
    for (const auto& part : *content) {
      if (!text.empty()) text += "\n";
      if (part.is_object() && string_at(part, "type") == "text") text += string_at(part, "text");
      else text += summary_of(part);
    }
  }
  if (text.empty() && result.contains("structuredContent")) text = line_of(result["structuredContent"]);
  cut_to(text, answer_cap, answer_cut_marker);
  reply.text = std::move(text);
  return reply;
}

} // namespace mur::mcp_client
