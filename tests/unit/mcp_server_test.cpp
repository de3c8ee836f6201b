// The loopback tool server's protocol (http/mcp_server.hpp): the order of judgement before the
// body is read, and the MCP methods it answers.
#include "http/mcp_server.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace mur;
using json = nlohmann::json;

namespace {

const OwnTool read_file{"files__read_file", "Read a file.",
                        R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})"};
const std::vector<McpTurn> turns{{"tok-one", {"coder", "tester"}, {}, {}},
                                 {"tok-two", {}, {}, {}},
                                 {"tok-three", {}, {"summarizer"}, {}},
                                 {"tok-four", {}, {}, {read_file}}};

PlainRequest post(std::string body, std::string token = "tok-one", std::vector<std::pair<std::string, std::string>> extra = {}) {
  PlainRequest r;
  r.method = "POST";
  r.target = "/mcp";
  r.headers = {{"Content-Type", "application/json"}};
  if (!token.empty()) r.headers.emplace_back("Authorization", "Bearer " + token);
  for (auto& h : extra) r.headers.push_back(h);
  r.body = std::move(body);
  return r;
}

PlainAnswer answer(const PlainRequest& r) {
  auto step = mcp_step(r, turns);
  REQUIRE(std::holds_alternative<PlainAnswer>(step));
  return std::get<PlainAnswer>(step);
}

json rpc(const std::string& method, json params = json::object(), json id = 1) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

} // namespace

TEST_CASE("mcp: path, method, origin and token are judged before the body is read", "[mcp]") {
  const std::string junk = "{not json";
  PlainRequest wrong_path = post(junk);
  wrong_path.target = "/other";
  CHECK(answer(wrong_path).status == 404);
  PlainRequest get = post(junk);
  get.method = "GET";
  CHECK(answer(get).status == 405);
  CHECK(answer(post(junk, "tok-one", {{"Origin", "http://evil.example"}})).status == 403);
  CHECK(answer(post(junk, "tok-one", {{"Origin", "http://127.0.0.1:8080"}})).status == 400); // then the body
  CHECK(answer(post(junk, "")).status == 401);
  CHECK(answer(post(junk, "tok-on")).status == 401);
  const auto refused = answer(post(junk, "tok-one-and-more"));
  CHECK(refused.status == 401);
  CHECK(refused.headers.at(0).first == "Content-Type");
  CHECK(answer(post(junk, "tok-one", {{"MCP-Protocol-Version", "1999-01-01"}})).status == 400);
  PlainRequest text = post(rpc("ping").dump());
  text.headers.at(0).second = "text/plain";
  CHECK(answer(text).status == 415);
}

TEST_CASE("mcp: initialize, notifications, ping, tools/list and tools/call", "[mcp]") {
  const json init = json::parse(answer(post(rpc("initialize", {{"protocolVersion", "2025-11-25"}}).dump())).body);
  CHECK(init["result"]["protocolVersion"] == "2025-11-25");
  CHECK(init["result"]["capabilities"].contains("tools"));
  // The instructions name the tools each turn offers, and no other.
  const std::string calls = init["result"]["instructions"];
  CHECK(calls.find("call-member") != std::string::npos);
  CHECK(calls.find("delegate") == std::string::npos);
  const auto init_of = [](const std::string& token) {
    return json::parse(answer(post(rpc("initialize").dump(), token)).body)["result"]["instructions"].get<std::string>();
  };
  const std::string none = init_of("tok-two");
  CHECK(none.find("call-member") == std::string::npos);
  CHECK(none.find("delegate hands") == std::string::npos);
  CHECK(none.find("no runtime tools") != std::string::npos);
  const std::string delegates = init_of("tok-three");
  CHECK(delegates.find("delegate") != std::string::npos);
  CHECK(delegates.find("call-member") == std::string::npos);
  CHECK(answer(post(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump())).status == 202);
  CHECK(json::parse(answer(post(rpc("ping").dump())).body)["result"] == json::object());

  const json listed = json::parse(answer(post(rpc("tools/list").dump())).body);
  REQUIRE(listed["result"]["tools"].size() == 2);
  CHECK(listed["result"]["tools"][0]["name"] == "call-member");
  CHECK(listed["result"]["tools"][0]["inputSchema"]["properties"]["member"]["enum"] == json({"coder", "tester"}));
  // The second turn's member may call nobody: no tools, and call-member is unknown there.
  CHECK(json::parse(answer(post(rpc("tools/list").dump(), "tok-two")).body)["result"]["tools"].empty());
  CHECK(json::parse(answer(post(rpc("tools/call", {{"name", "call-member"}}).dump(), "tok-two")).body)["error"]["code"] == -32602);

  auto step = mcp_step(post(rpc("tools/call", {{"name", "call-member"}, {"arguments", {{"member", "coder"}, {"task", "x"}}}}, 7).dump()), turns);
  REQUIRE(std::holds_alternative<McpCallFor>(step));
  const auto& call = std::get<McpCallFor>(step);
  CHECK(call.turn == 0);
  CHECK(call.call.id == 7);
  CHECK(call.call.call.name == "call-member");
  CHECK(json::parse(call.call.call.arguments) == json{{"member", "coder"}, {"task", "x"}});
  const json reply = json::parse(mcp_tool_answer(7, ToolReply{"refused", true}).body);
  CHECK(reply["result"]["isError"] == true);
  CHECK(reply["result"]["content"][0]["text"] == "refused");

  CHECK(json::parse(answer(post(rpc("resources/list").dump())).body)["error"]["code"] == -32601);
  CHECK(json::parse(answer(post(json::array().dump())).body)["error"]["code"] == -32600);
}

TEST_CASE("mcp: a member whose capsule may delegate lists delegate and forwards its calls", "[mcp][delegation]") {
  const json listed = json::parse(answer(post(rpc("tools/list").dump(), "tok-three")).body);
  REQUIRE(listed["result"]["tools"].size() == 2);
  CHECK(listed["result"]["tools"][0]["name"] == "delegate");
  CHECK(listed["result"]["tools"][0]["inputSchema"]["properties"]["capsule"]["enum"] == json({"summarizer"}));
  CHECK(listed["result"]["tools"][1]["name"] == "end-without-answer");
  // A member that may call but not delegate has no delegate tool.
  CHECK(json::parse(answer(post(rpc("tools/call", {{"name", "delegate"}}).dump())).body)["error"]["code"] == -32602);
  auto step = mcp_step(post(rpc("tools/call", {{"name", "delegate"}, {"arguments", {{"capsule", "summarizer"}, {"task", "sum"}}}}, 9).dump(),
                            "tok-three"),
                       turns);
  REQUIRE(std::holds_alternative<McpCallFor>(step));
  const auto& call = std::get<McpCallFor>(step);
  CHECK(call.turn == 2);
  CHECK(call.call.call.name == "delegate");
  CHECK(json::parse(call.call.call.arguments) == json{{"capsule", "summarizer"}, {"task", "sum"}});
}

TEST_CASE("mcp: the capsule's own tools are listed and called under the names an http model sees", "[mcp][tools]") {
  const json init = json::parse(answer(post(rpc("initialize").dump(), "tok-four")).body);
  const std::string text = init["result"]["instructions"];
  CHECK(text.find("no runtime tools") != std::string::npos);
  CHECK(text.find("The capsule's own tools: files__read_file.") != std::string::npos);
  const json listed = json::parse(answer(post(rpc("tools/list").dump(), "tok-four")).body);
  REQUIRE(listed["result"]["tools"].size() == 1);
  CHECK(listed["result"]["tools"][0]["name"] == "files__read_file");
  CHECK(listed["result"]["tools"][0]["description"] == "Read a file.");
  CHECK(listed["result"]["tools"][0]["inputSchema"]["required"] == json({"path"}));
  auto step = mcp_step(post(rpc("tools/call", {{"name", "files__read_file"}, {"arguments", {{"path", "a.txt"}}}}, 3).dump(),
                            "tok-four"),
                       turns);
  REQUIRE(std::holds_alternative<McpCallFor>(step));
  CHECK(std::get<McpCallFor>(step).turn == 3);
  CHECK(std::get<McpCallFor>(step).call.call.name == "files__read_file");
  CHECK(json::parse(std::get<McpCallFor>(step).call.call.arguments) == json{{"path", "a.txt"}});
  // Another turn's capsule tools are not this one's; an unknown name says which ones there are.
  const json other = json::parse(answer(post(rpc("tools/call", {{"name", "files__read_file"}}).dump(), "tok-one")).body);
  CHECK(other["error"]["code"] == -32602);
  CHECK(other["error"]["message"].get<std::string>().find("this turn's tools are call-member, end-without-answer") !=
        std::string::npos);
  const json unknown = json::parse(answer(post(rpc("tools/call", {{"name", "files__write"}}).dump(), "tok-four")).body);
  CHECK(unknown["error"]["message"].get<std::string>().find("this turn's tools are files__read_file") != std::string::npos);
}
