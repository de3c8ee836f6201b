// tool_server_spec.cpp — see tool_server_spec.hpp.
#include "capsule/tool_server_spec.hpp"

#include "capsule/yaml_reader.hpp"
#include "messages/vocabulary/model_endpoint.hpp"

#include <algorithm>
#include <cctype>

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

namespace {

bool server_name_ok(const std::string& n) {
  return !n.empty() && n.size() <= 32 && n.front() != '-' && n.back() != '-' &&
         n.find("__") == std::string::npos && std::all_of(n.begin(), n.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

ToolServerSpec parse_one(const Value& t) {
  t.expect_map({"name", "command", "url", "headers", "env", "allow", "timeout_secs"});
  ToolServerSpec s;
  Value name = t.require("name");
  s.name = name.string();
  if (!server_name_ok(s.name))
    name.fail("'" + s.name + "' is not 1-32 of a-z, 0-9 and - (not starting or ending with -)",
              "name the server like files or web-search");
  if (auto url = t.get("url"))
    url->fail("streamable HTTP tool servers are not supported yet",
              "run the server over stdio: give its command instead of url");
  if (auto h = t.get("headers")) h->fail("applies to url, which is not supported yet", "remove headers");
  Value cmd = t.require("command");
  s.command = cmd.strings();
  if (s.command.empty() || s.command.front().empty())
    cmd.fail("is an empty list", "give the server's program and its arguments, e.g. [node, server.mjs]");
  if (auto env = t.get("env")) s.env = parse_env_map(*env);
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
