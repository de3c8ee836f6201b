// The loopback tool server's protocol (http/mcp_server.hpp): the order of judgement before the
// body is read, and the MCP methods it answers — in the handshake era (2025-11-25) and statelessly
// at 2026-07-28, per request.
#include "http/mcp_server.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <optional>

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

using Headers = std::vector<std::pair<std::string, std::string>>;

// A 2026-07-28 request: the version and capabilities in params._meta (`meta` merged over them),
// and the headers a conforming client sends unless `headers` are given instead.
const std::string v2026 = "2026-07-28";
json stateless_meta(json meta = json::object()) {
  json out{{"io.modelcontextprotocol/protocolVersion", v2026},
           {"io.modelcontextprotocol/clientInfo", {{"name", "test"}, {"version", "1"}}},
           {"io.modelcontextprotocol/clientCapabilities", json::object()}};
  for (auto& [k, v] : meta.items()) {
    if (v.is_null()) out.erase(k);
    else out[k] = v;
  }
  return out;
}
PlainRequest stateless_post(const std::string& method, json params = json::object(), json id = 1,
                            std::optional<Headers> headers = std::nullopt, json meta = json::object()) {
  params["_meta"] = stateless_meta(std::move(meta));
  if (!headers) {
    headers = Headers{{"MCP-Protocol-Version", v2026}, {"Mcp-Method", method}};
    if (params.contains("name")) headers->emplace_back("Mcp-Name", params["name"].get<std::string>());
  }
  return post(rpc(method, params, id).dump(), "tok-one", *headers);
}
json body_of(const PlainRequest& r) { return json::parse(answer(r).body); }

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
  const auto old_version = answer(post(junk, "tok-one", {{"MCP-Protocol-Version", "1999-01-01"}}));
  CHECK(old_version.status == 400);
  CHECK(json::parse(old_version.body)["error"]["code"] == -32022); // before the body, which is junk
  CHECK(answer(post(junk, "", {{"MCP-Protocol-Version", "1999-01-01"}})).status == 401); // the token first
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
  CHECK(call.call.era == McpEra::handshake);
  const json reply = json::parse(mcp_tool_answer(call.call, ToolReply{"refused", true}).body);
  CHECK(reply["id"] == 7);
  CHECK(reply["result"]["isError"] == true);
  CHECK(reply["result"]["content"][0]["text"] == "refused");
  CHECK_FALSE(reply["result"].contains("resultType")); // a 2025-11-25 result is as it was

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

TEST_CASE("mcp: one list of versions, an unsupported MCP-Protocol-Version is -32022 listing it", "[mcp]") {
  REQUIRE(mcp_protocol_versions.front() == v2026);
  json supported = json::array();
  for (const char* v : mcp_protocol_versions) supported.push_back(v);
  CHECK(supported == json({"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}));
  // Judged before the body; the body is read only for the id it echoes.
  const auto refused = answer(stateless_post("server/discover", {}, 301, Headers{{"MCP-Protocol-Version", "v999.0.0"}},
                                             {{"io.modelcontextprotocol/protocolVersion", "v999.0.0"}}));
  CHECK(refused.status == 400);
  const json e = json::parse(refused.body);
  CHECK(e["id"] == 301);
  CHECK(e["error"]["code"] == -32022);
  CHECK(e["error"]["data"]["supported"] == supported);
  CHECK(e["error"]["data"]["requested"] == "v999.0.0");
  CHECK(e["error"]["message"].get<std::string>().find("2026-07-28, 2025-11-25") != std::string::npos);
  // Every listed version passes the header (2026-07-28's with its _meta); server/discover lists
  // the same ones.
  for (const char* v : mcp_protocol_versions) {
    const auto a = answer(v == v2026 ? stateless_post("tools/list")
                                     : post(rpc("tools/list").dump(), "tok-one", {{"MCP-Protocol-Version", v}}));
    CHECK(a.status == 200);
  }
  CHECK(body_of(stateless_post("server/discover"))["result"]["supportedVersions"] == supported);
}

TEST_CASE("mcp: 2026-07-28 server/discover, with no handshake before it", "[mcp]") {
  const auto a = answer(stateless_post("server/discover", {}, "d1"));
  CHECK(a.status == 200);
  const json r = json::parse(a.body);
  CHECK(r["id"] == "d1");
  const json& res = r["result"];
  CHECK(res["resultType"] == "complete");
  CHECK(res["capabilities"]["tools"]["listChanged"] == false);
  CHECK(res["instructions"].get<std::string>().find("call-member") != std::string::npos);
  CHECK(res["_meta"]["io.modelcontextprotocol/serverInfo"] == json{{"name", "mur"}, {"version", "1"}});
  CHECK(res["ttlMs"] == 0);
  CHECK(res["cacheScope"] == "private");
  // clientInfo is a SHOULD: a request without it is served.
  CHECK(answer(stateless_post("server/discover", {}, 2, std::nullopt, {{"io.modelcontextprotocol/clientInfo", nullptr}})).status == 200);
}

TEST_CASE("mcp: 2026-07-28 tools/list and tools/call are served per request, results complete", "[mcp]") {
  const json listed = body_of(stateless_post("tools/list", {}, 5));
  CHECK(listed["result"]["resultType"] == "complete");
  CHECK(listed["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mur");
  CHECK(listed["result"]["cacheScope"] == "private");
  REQUIRE(listed["result"]["tools"].size() == 2);
  CHECK(listed["result"]["tools"][0]["name"] == "call-member");

  auto step = mcp_step(stateless_post("tools/call", {{"name", "call-member"}, {"arguments", {{"member", "tester"}, {"task", "t"}}}}, 8), turns);
  REQUIRE(std::holds_alternative<McpCallFor>(step));
  const auto& call = std::get<McpCallFor>(step);
  CHECK(call.turn == 0);
  CHECK(call.call.era == McpEra::stateless);
  CHECK(call.call.call.name == "call-member");
  CHECK(json::parse(call.call.call.arguments) == json{{"member", "tester"}, {"task", "t"}});
  const json reply = json::parse(mcp_tool_answer(call.call, ToolReply{"held", false}).body);
  CHECK(reply["id"] == 8);
  CHECK(reply["result"]["resultType"] == "complete");
  CHECK(reply["result"]["isError"] == false);
  CHECK(reply["result"]["content"][0]["text"] == "held");
  CHECK(reply["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mur");
  // An unknown tool is still -32602 naming the turn's tools.
  const json unknown = body_of(stateless_post("tools/call", {{"name", "files__read_file"}}, 9));
  CHECK(unknown["error"]["code"] == -32602);
  CHECK(unknown["error"]["message"].get<std::string>().find("call-member, end-without-answer") != std::string::npos);
}

TEST_CASE("mcp: 2026-07-28 headers that disagree with the body are 400, -32020", "[mcp]") {
  const auto mismatch = [](const PlainRequest& r) {
    const auto a = answer(r);
    CHECK(a.status == 400);
    const json e = json::parse(a.body);
    CHECK(e["id"] == 4);
    return e["error"]["code"].get<int>();
  };
  // MCP-Protocol-Version: missing, or another version than _meta's (listed or not).
  CHECK(mismatch(stateless_post("tools/list", {}, 4, Headers{{"Mcp-Method", "tools/list"}})) == -32020);
  CHECK(mismatch(stateless_post("tools/list", {}, 4, Headers{{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "tools/list"}})) == -32020);
  CHECK(mismatch(stateless_post("server/discover", {}, 4, Headers{{"MCP-Protocol-Version", v2026}, {"Mcp-Method", "server/discover"}},
                                {{"io.modelcontextprotocol/protocolVersion", "v999.0.0"}})) == -32020);
  // Mcp-Method: missing, another method, another case.
  CHECK(mismatch(stateless_post("tools/list", {}, 4, Headers{{"MCP-Protocol-Version", v2026}})) == -32020);
  CHECK(mismatch(stateless_post("tools/list", {}, 4, Headers{{"MCP-Protocol-Version", v2026}, {"Mcp-Method", "prompts/list"}})) == -32020);
  CHECK(mismatch(stateless_post("tools/list", {}, 4, Headers{{"MCP-Protocol-Version", v2026}, {"Mcp-Method", "TOOLS/LIST"}})) == -32020);
  // Mcp-Name on tools/call: missing, another tool, a sentinel that does not decode.
  const json call{{"name", "call-member"}, {"arguments", {{"member", "coder"}, {"task", "x"}}}};
  const Headers call_headers{{"MCP-Protocol-Version", v2026}, {"Mcp-Method", "tools/call"}};
  CHECK(mismatch(stateless_post("tools/call", call, 4, call_headers)) == -32020);
  auto wrong = call_headers;
  wrong.emplace_back("Mcp-Name", "end-without-answer");
  CHECK(mismatch(stateless_post("tools/call", call, 4, wrong)) == -32020);
  auto undecodable = call_headers;
  undecodable.emplace_back("Mcp-Name", "=?base64?not base64!?=");
  CHECK(mismatch(stateless_post("tools/call", call, 4, undecodable)) == -32020);
  // Header names are case-insensitive, values trimmed, and an encoded Mcp-Name decoded.
  const auto accepted = [&](Headers h) {
    return std::holds_alternative<McpCallFor>(mcp_step(stateless_post("tools/call", call, 4, std::move(h)), turns));
  };
  CHECK(accepted({{"mcp-protocol-version", v2026}, {"MCP-METHOD", "tools/call"}, {"mcp-name", "  call-member  "}}));
  CHECK(accepted({{"MCP-Protocol-Version", v2026}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "=?base64?Y2FsbC1tZW1iZXI=?="}}));
}

TEST_CASE("mcp: 2026-07-28 without the _meta it needs is 400, -32602", "[mcp]") {
  const auto invalid = [](const PlainRequest& r) {
    const auto a = answer(r);
    CHECK(a.status == 400);
    return json::parse(a.body)["error"]["code"].get<int>();
  };
  const Headers h{{"MCP-Protocol-Version", v2026}, {"Mcp-Method", "server/discover"}};
  // No _meta at all, or one without the version, with the 2026-07-28 header.
  CHECK(invalid(post(rpc("server/discover", json::object(), 101).dump(), "tok-one", h)) == -32602);
  CHECK(invalid(stateless_post("server/discover", {}, 102, h, {{"io.modelcontextprotocol/protocolVersion", nullptr}})) == -32602);
  CHECK(invalid(post(rpc("tools/list").dump(), "tok-one", {{"MCP-Protocol-Version", v2026}})) == -32602);
  // Without clientCapabilities, or with capabilities that are not an object.
  CHECK(invalid(stateless_post("server/discover", {}, 104, h, {{"io.modelcontextprotocol/clientCapabilities", nullptr}})) == -32602);
  CHECK(invalid(stateless_post("server/discover", {}, 105, h, {{"io.modelcontextprotocol/clientCapabilities", json::array()}})) == -32602);
  // A version that is not a string.
  CHECK(invalid(stateless_post("server/discover", {}, 106, h, {{"io.modelcontextprotocol/protocolVersion", 2026}})) == -32602);
  // server/discover is 2026-07-28's only: without the _meta version it is invalid in any era.
  CHECK(invalid(post(rpc("server/discover").dump())) == -32602);
  const json e = body_of(post(rpc("server/discover", json::object(), 107).dump()));
  CHECK(e["id"] == 107);
  CHECK(e["error"]["message"].get<std::string>().find("io.modelcontextprotocol/clientCapabilities") != std::string::npos);
}

TEST_CASE("mcp: 2026-07-28 has no initialize, ping or logging/setLevel: 404, -32601", "[mcp]") {
  for (const std::string method : {"initialize", "ping", "logging/setLevel", "prompts/list", "subscriptions/listen", "unknown/method"}) {
    const auto a = answer(stateless_post(method, {}, 500));
    CHECK(a.status == 404);
    const json e = json::parse(a.body);
    CHECK(e["id"] == 500);
    CHECK(e["error"]["code"] == -32601);
  }
}

TEST_CASE("mcp: without the _meta version a request is the handshake era, as before", "[mcp]") {
  // initialize negotiates a handshake version only: 2026-07-28 has no initialize.
  const auto negotiated = [](json asked) {
    return body_of(post(rpc("initialize", {{"protocolVersion", asked}}).dump()))["result"]["protocolVersion"];
  };
  CHECK(negotiated(v2026) == "2025-11-25");
  CHECK(negotiated("2025-06-18") == "2025-06-18");
  CHECK(negotiated("2025-03-26") == "2025-03-26");
  CHECK(negotiated("1999-01-01") == "2025-11-25");
  // Its Mcp-* headers are not read, and its results have no resultType.
  const json listed = body_of(post(rpc("tools/list").dump(), "tok-one", {{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "prompts/list"}}));
  CHECK(listed["result"]["tools"].size() == 2);
  CHECK_FALSE(listed["result"].contains("resultType"));
  // A _meta naming a handshake version (its header agreeing) is that era: ping is answered.
  const json ping = body_of(stateless_post("ping", {}, 6, Headers{{"MCP-Protocol-Version", "2025-11-25"}},
                                           {{"io.modelcontextprotocol/protocolVersion", "2025-11-25"}}));
  CHECK(ping["result"] == json::object());
  // An unrelated _meta (a progress token) leaves a request in the handshake era.
  CHECK(body_of(post(rpc("ping", {{"_meta", {{"progressToken", 1}}}}).dump()))["result"] == json::object());
}
