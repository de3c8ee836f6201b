// tool_server_spec.cpp — see tool_server_spec.hpp.
#include "capsule/tool_server_spec.hpp"

#include "capsule/yaml_reader.hpp"
#include "messages/credentials/virtual_address.hpp"
#include "messages/vocabulary/model_endpoint.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <variant>

namespace mur {

using yaml::Value;

std::vector<std::pair<std::string, std::string>> parse_env_map(const Value& v) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [name, value] : v.entries()) {
    const bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                    std::all_of(name.begin(), name.end(), [](char c) {
                      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                    });
    if (!ok) value.fail("names a variable '" + name + "' that is not a name of letters, digits and _",
                        "use a name such as OPENAI_API_KEY");
    if (name.rfind("MURMUR_", 0) == 0)
      value.fail("sets " + name + ": MURMUR_ variables are the runtime's", "choose another name");
    const std::string text = value.text();
    if (text.find("${") != std::string::npos && !env_reference_name(text))
      value.fail("'" + text + "' mixes ${…} with other text", "write the value alone, or ${NAME} alone");
    out.emplace_back(name, text);
  }
  return out;
}

bool runtime_header(const std::string& n) {
  static const char* const names[] = {"content-type", "accept", "host", "content-length", "transfer-encoding",
                                      "connection", "expect", "mcp-session-id", "mcp-protocol-version",
                                      "mcp-method", "mcp-name", "last-event-id"};
  return std::any_of(std::begin(names), std::end(names), [&](const char* r) { return n == r; });
}

namespace {

std::string lower_case(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool server_name_ok(const std::string& n) {
  return !n.empty() && n.size() <= 32 && n.front() != '-' && n.back() != '-' &&
         n.find("__") == std::string::npos && std::all_of(n.begin(), n.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

std::string parse_url(const Value& v, bool allow_insecure_http) {
  const std::string text = v.string();
  // A formation's virtual address is never resolved or sent as written: only call-member reaches
  // a member, so every answer is fenced (docs/spec/choices.md §Tool servers). Said before any
  // other fault of the URL, which would send the user looking elsewhere.
  const auto scheme_end = text.find("://");
  if (scheme_end != std::string::npos) {
    std::string host = text.substr(scheme_end + 3);
    host = host.substr(0, host.find_first_of("/:"));
    if (is_formation_host(host))
      v.fail("names " + host + ", a formation's virtual address, which only call-member reaches",
             "point url at the tool server; to hand another member work, call it with call-member");
  }
  auto parsed = parse_model_endpoint(text, allow_insecure_http);
  if (auto* p = std::get_if<EndpointProblem>(&parsed)) {
    v.fail(p->problem, "write it like http://127.0.0.1:8811/mcp (plain http only on a loopback host, or with "
                       "allow_insecure_http: true beside it) or https://tools.example.com/mcp; a key goes in "
                       "headers, never in the URL");
  }
  const ModelEndpoint& ep = std::get<ModelEndpoint>(parsed);
  if (ep.path.empty()) v.fail("has no path", "give the server's endpoint with its path, e.g. http://127.0.0.1:8811/mcp");
  return text; // as written: a server may serve /mcp/ and not /mcp
}

bool header_name_ok(const std::string& n) {
  return !n.empty() && n.size() <= 64 && std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

std::vector<std::pair<std::string, std::string>> parse_headers(const Value& v) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [name, value] : v.entries()) {
    if (!header_name_ok(name))
      value.fail("names a header '" + name + "' that is not 1-64 of letters, digits, - and _",
                 "use a header name such as Authorization");
    const std::string lower = lower_case(name);
    if (runtime_header(lower)) value.fail("sets " + name + ", which mur sets itself on every request", "remove it");
    for (const auto& [seen, ignored] : out)
      if (lower_case(seen) == lower) value.fail("names " + name + " twice", "give each header once");
    const std::string text = value.text();
    if (std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      value.fail("holds a control character", "write the value on one line of printable text");
    if (!env_references(text)) // the value may hold a key: never quoted
      value.fail("holds a ${ that does not open a ${NAME} of capitals, digits and _",
                 "write each reference as ${NAME}, e.g. Bearer ${SEARCH_KEY}");
    out.emplace_back(name, text);
  }
  return out;
}

ToolServerSpec parse_one(const Value& t) {
  t.expect_map({"name", "command", "url", "headers", "env", "allow", "timeout_secs", "allow_insecure_http"});
  ToolServerSpec s;
  Value name = t.require("name");
  s.name = name.string();
  if (!server_name_ok(s.name))
    name.fail("'" + s.name + "' is not 1-32 of a-z, 0-9 and - (not starting or ending with -)",
              "name the server like files or web-search");
  auto url = t.get("url");
  auto cmd = t.get("command");
  if (url && cmd)
    url->fail("is given beside command, but a tool server is reached one way",
              "keep command for a server this member starts, or url for one that already runs");
  auto insecure = t.get("allow_insecure_http");
  if (insecure && !url) insecure->fail("applies to url, not command", "remove allow_insecure_http");
  if (url) {
    s.url = parse_url(*url, insecure && insecure->boolean());
    s.endpoint = std::get<ModelEndpoint>(parse_model_endpoint(s.url, insecure && insecure->boolean()));
    if (auto env = t.get("env")) env->fail("applies to command, not url", "remove env, or use headers");
    if (auto h = t.get("headers")) s.headers = parse_headers(*h);
  } else {
    if (!cmd) t.require("command"); // "command: is required"
    s.command = cmd->strings();
    if (s.command.empty() || s.command.front().empty())
      cmd->fail("is an empty list", "give the server's program and its arguments, e.g. [node, server.mjs]");
    if (auto h = t.get("headers")) h->fail("applies to url, not command", "remove headers, or pass them in env");
    if (auto env = t.get("env")) s.env = parse_env_map(*env);
  }
  if (auto a = t.get("allow")) {
    s.allow = a->strings();
    if (s.allow->empty()) a->fail("is empty", "name the tools to offer, or remove allow to offer them all");
    for (std::size_t i = 0; i < s.allow->size(); ++i)
      if (std::count(s.allow->begin(), s.allow->end(), (*s.allow)[i]) > 1)
        a->fail("names '" + (*s.allow)[i] + "' more than once", "name each tool once");
  }
  if (auto to = t.get("timeout_secs")) s.timeout_secs = static_cast<int>(to->integer(1, 86'400));
  return s;
}

} // namespace

std::vector<ToolServerSpec> parse_tool_servers(const Value& v) {
  std::vector<ToolServerSpec> out;
  for (const auto& t : v.items()) {
    out.push_back(parse_one(t));
    for (std::size_t i = 0; i + 1 < out.size(); ++i)
      if (out[i].name == out.back().name)
        t.require("name").fail("'" + out.back().name + "' is the name of another tool server",
                               "give each tool server its own name");
  }
  if (out.empty()) v.fail("is an empty list", "declare at least one server, or remove tools");
  return out;
}

} // namespace mur
