// sim_tool_server.cpp — see sim_tool_server.hpp.
#include "sim_tool_server.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

namespace mur::sim {

namespace {

using json = nlohmann::json;

struct SimToolServerState {
  SimTools tools;
  bool silent = false;
  SimEra era = SimEra::legacy;
  bool mute_lists = false; // after "change_then_mute": tools/list is never answered again
  mcp_listener hub;
  std::int32_t index = 0;
  SimToolServerLog log;
  static inline const char* name = "mur.sim_tool_server";
};

using server_ptr = mcp_transport::stateful_pointer<SimToolServerState>;

void reply(server_ptr self, const json& id, const json& result) {
  self->send(self->state.hub, McpLine{self->state.index, json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump()});
}

void on_request(server_ptr self, const json& msg) {
  auto& st = self->state;
  const std::string method = msg.value("method", "");
  if (!msg.contains("id")) return; // a notification
  const json id = msg["id"];
  if (method == "server/discover" && st.era == SimEra::modern)
    return reply(self, id, {{"supportedVersions", {"2026-07-28"}}, {"capabilities", {{"tools", json::object()}}},
                            {"resultType", "complete"}});
  if (method == "server/discover" && st.era == SimEra::mute_before_initialize) return;
  if (method == "server/discover" && st.era == SimEra::dies_at_discover) {
    st.era = SimEra::legacy; // the next process greets like any 2025 server
    self->send(st.hub, McpServerEnded{st.index, "exited with code 1"});
    return;
  }
  if (method == "initialize")
    return reply(self, id, {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"tools", json::object()}}},
                            {"serverInfo", {{"name", "sim"}, {"version", "1"}}}});
  if (method == "tools/list" && st.mute_lists) return;
  if (method == "tools/list") {
    json tools = json::array();
    for (const auto& [name, behaviour] : st.tools)
      tools.push_back({{"name", name}, {"description", "a " + behaviour + " tool"},
                       {"inputSchema", {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}}}});
    return reply(self, id, {{"tools", tools}});
  }
  if (method != "tools/call")
    return (void)self->send(st.hub, McpLine{st.index, json{{"jsonrpc", "2.0"}, {"id", id},
                                                           {"error", {{"code", -32601}, {"message", "Method not found"}}}}.dump()});
  const std::string tool = msg["params"].value("name", "");
  const std::string behaviour = st.tools.count(tool) ? st.tools[tool] : "refuse";
  const std::string args = msg["params"].value("arguments", json::object()).dump();
  if (behaviour == "echo")
    reply(self, id, {{"content", {{{"type", "text"}, {"text", tool + " got " + args}}}}});
  else if (behaviour == "error")
    reply(self, id, {{"content", {{{"type", "text"}, {"text", tool + " could not"}}}}, {"isError", true}});
  else if (behaviour == "change_then_mute") { // says its tools changed, then never lists them
    st.mute_lists = true;
    self->send(st.hub, McpLine{st.index, json{{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}.dump()});
    reply(self, id, {{"content", {{{"type", "text"}, {"text", "changed"}}}}});
  } else if (behaviour == "change") { // the tool goes, "extra" comes, and the server says so first
    st.tools.erase(tool);
    st.tools["extra"] = "echo";
    self->send(st.hub, McpLine{st.index, json{{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}.dump()});
    reply(self, id, {{"content", {{{"type", "text"}, {"text", "changed"}}}}});
  } else if (behaviour == "die")
    self->send(st.hub, McpServerEnded{st.index, "exited with code 1"});
  else if (behaviour == "refuse")
    self->send(st.hub, McpLine{st.index, json{{"jsonrpc", "2.0"}, {"id", id},
                                              {"error", {{"code", -32602}, {"message", "unknown tool"}}}}.dump()});
  // "hang": nothing
}

mcp_transport::behavior_type sim_tool_server(server_ptr self, SimTools tools, bool silent, SimEra era) {
  self->state.tools = std::move(tools);
  self->state.silent = silent;
  self->state.era = era;
  return {
    [=](const McpOpen& open) {
      self->state.hub = caf::actor_cast<mcp_listener>(self->current_sender());
      self->state.index = open.server;
      ++self->state.log.opens;
    },
    [=](const McpLine& l) {
      self->state.log.lines.push_back(l.line);
      if (!self->state.silent) on_request(self, json::parse(l.line));
    },
  };
}

} // namespace

mcp_transport spawn_sim_tool_server(caf::actor_system& sys, SimTools tools, bool silent, SimEra era) {
  return sys.spawn(sim_tool_server, std::move(tools), silent, era);
}

const SimToolServerLog& sim_tool_server_log(const mcp_transport& server) {
  auto ptr = caf::actor_cast<caf::abstract_actor*>(server);
  return dynamic_cast<mcp_transport::stateful_base<SimToolServerState>*>(ptr)->state.log;
}

} // namespace mur::sim
