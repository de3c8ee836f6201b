// tool_hub_test.cpp — the member's MCP client (actors/tool_hub.hpp) under the deterministic
// scheduler, over simulated tool servers: start and listing, allow lists, calls beside
// call-member in one turn, a tool past its timeout, a server that dies mid-call.
#include "task_scene.hpp"

#include "actors/tool_hub.hpp"
#include "sim_tool_server.hpp"

using namespace task_scene;
using mur::sim::SimEra;
using mur::sim::SimTools;

namespace {

struct hub_scene : scene {
  std::vector<mcp_transport> servers;
  SecretRedaction secrets; // every server's (its env and header values)

  // The hub and its servers hold each other: the hub ends them when it ends, as a member's does.
  ~hub_scene() override {
    if (own_tool_port) caf::anon_send_exit(own_tool_port, caf::exit_reason::user_shutdown);
    sched.run();
  }

  // Spawns the hub over one simulated server per entry and waits until it is listed.
  // `wait`: how far simulated time goes while it starts (the start deadline: 30 s).
  ToolsListed start_hub(std::vector<std::pair<std::string, SimTools>> specs,
                        std::optional<std::vector<std::string>> allow = std::nullopt, bool silent = false,
                        SimEra era = SimEra::legacy, std::chrono::seconds wait = std::chrono::seconds(30)) {
    ToolHubSetup setup;
    for (auto& [name, sim_tools] : specs) {
      servers.push_back(mur::sim::spawn_sim_tool_server(sys, sim_tools, silent, era));
      setup.servers.push_back(ToolServerSetup{name, allow, std::chrono::seconds(60), servers.back(), secrets});
    }
    setup.trace = caf::actor_cast<trace_port>(trace);
    own_tool_port = spawn_tool_hub(sys, std::move(setup));
    auto handle = self->request(own_tool_port, caf::infinite, tools_atom_v);
    sched.run();
    sched.advance_time(wait); // the start deadline: decides only for a server that never answers
    sched.run();
    ToolsListed listed;
    handle.receive([&](const ToolsListed& l) { listed = l; }, [&](const caf::error& e) { FAIL(sys.render(e)); });
    own_tools = listed.tools;
    return listed;
  }

  ScriptTurn use(std::string tool, std::string arguments) {
    ScriptTurn t;
    t.uses.push_back(ScriptToolUse{std::move(tool), std::move(arguments)});
    return t;
  }
};

} // namespace

TEST_CASE_METHOD(hub_scene, "tool hub: servers are initialized and listed once, their tools named server__tool",
                 "[sim][tools]") {
  auto listed = start_hub({{"files", {{"read", "echo"}, {"write", "echo"}}}, {"web", {{"search", "echo"}}}});
  CHECK(listed.code.empty());
  CHECK(listed.failure.empty());
  std::vector<std::string> names;
  for (const auto& t : listed.tools) names.push_back(t.name);
  CHECK(names == std::vector<std::string>{"files__read", "files__write", "web__search"});
  CHECK(json::parse(listed.tools[0].input_schema)["type"] == "object");
  const auto& lines = mur::sim::sim_tool_server_log(servers[0]).lines;
  REQUIRE(lines.size() == 4);
  // the probe for 2026-07-28 first; its -32601 means the legacy era and its handshake
  CHECK(json::parse(lines[0])["method"] == "server/discover");
  CHECK(json::parse(lines[0])["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28");
  CHECK(json::parse(lines[1])["method"] == "initialize");
  CHECK(json::parse(lines[1])["params"]["protocolVersion"] == "2025-11-25");
  CHECK(json::parse(lines[2])["method"] == "notifications/initialized");
  CHECK(json::parse(lines[3])["method"] == "tools/list");
  CHECK_FALSE(json::parse(lines[3])["params"].contains("_meta"));
  REQUIRE(events("tool_server_ready").size() == 2);
  CHECK(events("tool_server_ready")[0]["protocol"] == "2025-11-25");
}

TEST_CASE_METHOD(hub_scene, "tool hub: a server that answers server/discover with 2026-07-28 is spoken to statelessly",
                 "[sim][tools]") {
  auto listed = start_hub({{"files", {{"read", "echo"}}}}, std::nullopt, false, SimEra::modern);
  REQUIRE(listed.tools.size() == 1);
  start(script({use("files__read", "{\"text\":\"a\"}"), reply("{{tool_results}}")}), "operator", {});
  CHECK(finished().answer == "read got {\"text\":\"a\"}");
  const auto& lines = mur::sim::sim_tool_server_log(servers[0]).lines;
  std::vector<std::string> methods;
  for (const auto& l : lines) {
    const auto j = json::parse(l);
    methods.push_back(j["method"]);
    // every request names its revision: no handshake stands for it
    CHECK(j["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28");
  }
  CHECK(methods == std::vector<std::string>{"server/discover", "tools/list", "tools/call"});
  CHECK(events("tool_server_ready").at(0)["protocol"] == "2026-07-28");
}

TEST_CASE_METHOD(hub_scene, "tool hub: a server mute to the probe gets initialize once 5 s have passed",
                 "[sim][tools]") {
  auto listed = start_hub({{"files", {{"read", "echo"}}}}, std::nullopt, false, SimEra::mute_before_initialize,
                          std::chrono::seconds(5));
  CHECK(listed.code.empty());
  REQUIRE(listed.tools.size() == 1);
  const auto& lines = mur::sim::sim_tool_server_log(servers[0]).lines;
  REQUIRE(lines.size() == 4);
  CHECK(json::parse(lines[0])["method"] == "server/discover");
  CHECK(json::parse(lines[1])["method"] == "initialize");
}

TEST_CASE_METHOD(hub_scene, "tool hub: allow offers only the tools it names, and an allowed tool the server lacks fails the start",
                 "[sim][tools]") {
  SECTION("allowed") {
    auto listed = start_hub({{"files", {{"read", "echo"}, {"write", "echo"}}}}, std::vector<std::string>{"read"});
    REQUIRE(listed.tools.size() == 1);
    CHECK(listed.tools[0].name == "files__read");
  }
  SECTION("missing") {
    auto listed = start_hub({{"files", {{"read", "echo"}}}}, std::vector<std::string>{"read", "delete"});
    CHECK(listed.tools.empty());
    CHECK(listed.code == "E-TOOL-001");
    CHECK(listed.failure.rfind("the tool server 'files' did not start: lists no tool 'delete'", 0) == 0);
    CHECK(listed.fix.find("tools[].command") != std::string::npos);
  }
}

TEST_CASE_METHOD(hub_scene, "tool hub: a server that never answers initialize fails the start after 30 s",
                 "[sim][tools]") {
  auto listed = start_hub({{"mute", {{"read", "echo"}}}}, std::nullopt, true);
  CHECK(listed.code == "E-TOOL-001");
  CHECK(listed.failure.find("did not answer initialize and tools/list within 30 s") != std::string::npos);
}

TEST_CASE_METHOD(hub_scene, "tool hub: a tool call and a call-member in one turn each get their result, in order",
                 "[sim][tools]") {
  start_hub({{"files", {{"read", "echo"}}}});
  ScriptTurn both = use("files__read", R"({"text":"a.txt"})");
  both.calls.push_back(ScriptCall{"coder", "patch it"});
  start(script({both, reply("done: {{tool_results}}")}));
  // The script turn's results: the tool's, then the call's, in the order the calls were made.
  end_call("coder", "completed", "patched");
  auto& reqs = requests();
  REQUIRE(reqs.size() >= 2);
  auto results = tool_results(reqs[1]);
  REQUIRE(results.size() == 2);
  CHECK(results[0] == R"(read got {"text":"a.txt"})"); // the server got its own name for the tool
  CHECK(results[1].find("coder") != std::string::npos);
  auto calls = events("tool_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["server"] == "files");
  CHECK(calls[0]["tool"] == "files__read");
  CHECK(calls[0]["is_error"] == false);
  CHECK(calls[0]["arguments_bytes"] == 16);
}

TEST_CASE_METHOD(hub_scene, "tool hub: a tool that hangs past timeout_secs is a tool error and the server is told to cancel",
                 "[sim][tools]") {
  start_hub({{"files", {{"slow", "hang"}}}});
  start(script({use("files__slow", "{}"), reply("after: {{tool_results}}")}), "operator", {});
  CHECK(door_log().finished.empty());
  sched.advance_time(std::chrono::seconds(59));
  sched.run();
  CHECK(door_log().finished.empty());
  sched.advance_time(std::chrono::seconds(1));
  sched.run();
  const auto& done = finished();
  CHECK(done.answer.rfind("after: tool error: E-TOOL-003: files__slow did not answer within 60 s", 0) == 0);
  const auto& lines = mur::sim::sim_tool_server_log(servers[0]).lines;
  REQUIRE(!lines.empty());
  CHECK(json::parse(lines.back())["method"] == "notifications/cancelled");
  CHECK(events("tool_call").at(0)["is_error"] == true);
}

TEST_CASE_METHOD(hub_scene, "tool hub: under 2026-07-28 the cancel of a call past timeout_secs names its revision in _meta",
                 "[sim][tools]") {
  start_hub({{"files", {{"slow", "hang"}}}}, std::nullopt, false, SimEra::modern);
  start(script({use("files__slow", "{}"), reply("after: {{tool_results}}")}), "operator", {});
  sched.advance_time(std::chrono::seconds(60));
  sched.run();
  CHECK(finished().answer.rfind("after: tool error: E-TOOL-003", 0) == 0);
  const auto& lines = mur::sim::sim_tool_server_log(servers[0]).lines;
  REQUIRE(!lines.empty());
  const auto notice = json::parse(lines.back());
  CHECK(notice["method"] == "notifications/cancelled");
  CHECK(notice["params"]["requestId"] == json::parse(lines[lines.size() - 2])["id"]);
  CHECK(notice["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28");
}

TEST_CASE_METHOD(hub_scene, "tool hub: a server that dies mid-call answers it and every later call with E-TOOL-002",
                 "[sim][tools]") {
  start_hub({{"files", {{"crash", "die"}, {"read", "echo"}}}});
  start(script({use("files__crash", "{}"), use("files__read", "{}"), reply("{{tool_results}}")}), "operator", {});
  const auto& done = finished();
  CHECK(done.answer.rfind("tool error: E-TOOL-002: the tool server 'files' exited with code 1; its tools cannot be used", 0) == 0);
  auto& reqs = requests();
  REQUIRE(reqs.size() == 3);
  CHECK(tool_results(reqs[1]).at(0).find("E-TOOL-002") != std::string::npos);
  CHECK(tool_results(reqs[2]).at(0).find("E-TOOL-002") != std::string::npos);
  CHECK(events("tool_server_ended").size() == 1);
}

TEST_CASE_METHOD(hub_scene, "tool hub: isError and a server's JSON-RPC error both reach the model as its result",
                 "[sim][tools]") {
  start_hub({{"files", {{"bad", "error"}, {"gone", "refuse"}}}});
  ScriptTurn two = use("files__bad", "{}");
  two.uses.push_back(ScriptToolUse{"files__gone", "{}"});
  start(script({two, reply("{{tool_results}}")}), "operator", {});
  const auto& done = finished();
  CHECK(done.answer == "bad could not\ntool error: files__gone failed: unknown tool (code -32602).");
}

TEST_CASE_METHOD(hub_scene, "tool hub: notifications/tools/list_changed has the list read again, and the next turn is offered the new one",
                 "[sim][tools]") {
  start_hub({{"files", {{"change", "change"}, {"read", "echo"}}}});
  start(script({use("files__change", "{}"), use("files__extra", "{\"text\":\"hi\"}"), use("files__change", "{}"),
                reply("{{tool_results}}")}),
        "operator", {});
  const auto& done = finished();
  CHECK(done.answer == "tool error: there is no tool named \"files__change\"; the tools are files__extra, files__read. "
                      "Nothing was sent."); // the tool that went is no longer offered
  auto& reqs = requests();
  REQUIRE(reqs.size() == 4);
  auto names = [](const ModelTurnRequest& r) {
    std::vector<std::string> n;
    for (const auto& t : r.tools) n.push_back(t.name);
    return n;
  };
  CHECK(names(reqs[0]) == std::vector<std::string>{"files__change", "files__read"});
  CHECK(names(reqs[1]) == std::vector<std::string>{"files__extra", "files__read"});
  CHECK(tool_results(reqs[1]).at(0) == "changed");
  CHECK(tool_results(reqs[2]).at(0) == "extra got {\"text\":\"hi\"}");
  const auto relisted = events("tool_server_relisted");
  REQUIRE(relisted.size() == 1);
  CHECK(relisted[0]["tools"] == json::array({"files__extra", "files__read"}));
  // the hub asked for the list exactly twice: at start and after the notification
  int lists = 0;
  for (const auto& line : mur::sim::sim_tool_server_log(servers[0]).lines)
    if (json::parse(line).value("method", "") == "tools/list") ++lists;
  CHECK(lists == 2);
}

TEST_CASE_METHOD(hub_scene, "tool hub: a relisting the server never answers ends after 30 s, and the list offered stays",
                 "[sim][tools]") {
  start_hub({{"files", {{"poke", "change_then_mute"}, {"read", "echo"}}}});
  start(script({use("files__poke", "{}"), reply("{{tool_results}}")}), "operator", {});
  CHECK(finished().answer == "changed");
  CHECK(events("tool_server_relisted").empty()); // still reading
  sched.advance_time(std::chrono::seconds(30));
  sched.run();
  const auto relisted = events("tool_server_relisted");
  REQUIRE(relisted.size() == 1);
  CHECK(relisted[0]["failed"] == "did not answer tools/list within 30 s");
  auto handle = self->request(own_tool_port, caf::infinite, tools_atom_v);
  sched.run();
  handle.receive([](const ToolsListed& l) { CHECK(l.tools.size() == 2); }, [&](const caf::error& e) { FAIL(sys.render(e)); });
}

TEST_CASE_METHOD(hub_scene, "tool hub: a server that ends at the probe is started once more and greeted with initialize",
                 "[sim][tools]") {
  auto listed = start_hub({{"files", {{"read", "echo"}}}}, std::nullopt, false, SimEra::dies_at_discover);
  CHECK(listed.code.empty());
  REQUIRE(listed.tools.size() == 1);
  const auto& log = mur::sim::sim_tool_server_log(servers[0]);
  CHECK(log.opens == 2);
  REQUIRE(log.lines.size() == 4);
  CHECK(json::parse(log.lines[0])["method"] == "server/discover");
  CHECK(json::parse(log.lines[1])["method"] == "initialize");
  CHECK(events("tool_server_reopened").size() == 1);
  CHECK(events("tool_server_ended").empty());
}

TEST_CASE_METHOD(hub_scene, "tool hub: what a server answers has its own secrets written out before the model reads it",
                 "[sim][tools]") {
  secrets.add("sk-sim-secret-0123456789");
  start_hub({{"files", {{"read", "echo"}}}});
  start(script({use("files__read", "{\"text\":\"key sk-sim-secret-0123456789\"}"), reply("{{tool_results}}")}),
        "operator", {});
  CHECK(finished().answer == "read got {\"text\":\"key [redacted]\"}");
}
