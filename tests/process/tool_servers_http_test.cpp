// tool_servers_http_test.cpp — a capsule's own MCP tool servers over streamable HTTP (`url`), run
// for real: the reference everything server (@modelcontextprotocol/server-everything, its
// streamableHttp transport) and a probe server of the tests' own (tests/tools/http_probe_server.py)
// that records what it was sent: the headers with their key, the session and protocol version on
// every later request, the GET stream its notifications/tools/list_changed goes down, and the
// session's DELETE when the member ends. And a server on the official SDK v2
// (@modelcontextprotocol/server, tests/tools/sdk2_server.mjs), which speaks the stateless
// revision 2026-07-28: found by server/discover and called statelessly, over stdio and HTTP.
#include <catch2/catch.hpp>

#include "launched_mur.hpp"
#include "raw_http.hpp"
#include "run_command.hpp"
#include "tool_capsule.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <memory>

using namespace mur::test;
using json = nlohmann::json;

namespace {

// The reference everything server over streamable HTTP on a free loopback port; ended (SIGKILL,
// reaped) with the object.
struct EverythingOverHttp {
  int port = free_port();
  LaunchedMur node{{MUR_NODE, everything_server, "streamableHttp"}, {{"PORT", std::to_string(port)}}};
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }
  EverythingOverHttp() {
    if (!wait_listening(port, std::chrono::seconds(60))) throw std::runtime_error("the everything server did not listen: " + node.err());
  }
};

// The probe server, logging to a file of its own; its key is `key`.
struct ProbeOverHttp {
  TempDir dir;
  std::string log = dir.path + "/requests.jsonl";
  LaunchedMur python;
  std::string url;
  // `streams`: initialize answered on a stream the server keeps open, and the tools hang and after.
  explicit ProbeOverHttp(const std::string& key, bool streams = false)
      : python({"/usr/bin/env", "python3", std::string(MUR_SOURCE_DIR) + "/tests/tools/http_probe_server.py", log},
               {{"PROBE_KEY", key}, {"PROBE_STREAMS", streams ? "1" : "0"}}),
        url(python.read_line()) {
    if (url.rfind("http://127.0.0.1:", 0) != 0) throw std::runtime_error("the probe printed no endpoint: " + python.err());
  }
  std::vector<json> requests() const {
    std::vector<json> out;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }
};

const std::string sdk2_server = std::string(MUR_SOURCE_DIR) + "/tests/tools/sdk2_server.mjs";

// The SDK v2 server over streamable HTTP; what it was sent is on its stderr, a JSON line each.
struct Sdk2OverHttp {
  LaunchedMur node{{MUR_NODE, sdk2_server, "http"}, {}};
  std::string url = node.read_line();
  std::vector<json> requests() const {
    std::vector<json> out;
    const std::string err = node.err();
    for (std::size_t at = 0, nl; (nl = err.find('\n', at)) != std::string::npos; at = nl + 1) {
      auto j = json::parse(err.substr(at, nl - at), nullptr, false);
      if (j.is_object()) out.push_back(j);
    }
    return out;
  }
};

std::string probe_entry(const std::string& url) {
  return "  - name: probe\n    url: " + url + "\n    headers: {Authorization: 'Bearer ${PROBE_KEY}'}\n";
}

} // namespace

TEST_CASE("tools: the reference everything server over streamable HTTP answers a member's calls", "[process][tools]") {
  EverythingOverHttp every;
  ToolCapsule c(tool_manifest("  - name: every\n    url: " + every.url() + "\n    allow: [echo, get-sum]\n",
                              "    - use: {tool: every__echo, arguments: {message: over http}}\n"
                              "    - use: {tool: every__get-sum, arguments: {a: 20, b: 22}}\n"
                              "    - reply: 'echo said; then {{tool_results}}'\n"));
  Ran r = c.run("go");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") == "echo said; then The sum of 20 and 22 is 42.");
  auto ready = c.events("tool_server_ready");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0]["tools"] == json::array({"every__echo", "every__get-sum"}));
  auto calls = c.events("tool_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["is_error"] == false);
  CHECK(calls[1]["is_error"] == false);
}

TEST_CASE("tools: a streamable HTTP server gets its headers, the session on every later request, and its "
          "tools/list_changed is heard", "[process][tools]") {
  const std::string key = "sk-probe-5e3c1f0a9b7d4e21";
  ProbeOverHttp probe(key);
  ToolCapsule c(tool_manifest(probe_entry(probe.url), "    - use: {tool: probe__grow, arguments: {}}\n"
                                                      "    - reply: '{{tool_results}}'\n"));
  c.env["PROBE_KEY"] = key;
  Ran r = c.run("go");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") == "grown");
  // the list read again once the server said it changed
  auto relisted = c.events("tool_server_relisted");
  REQUIRE(relisted.size() == 1);
  CHECK(relisted[0]["tools"] == json::array({"probe__grow", "probe__late"}));

  const auto reqs = probe.requests();
  REQUIRE(reqs.size() >= 6);
  // the probe for 2026-07-28 (its revision in a header of its own), then the legacy handshake
  CHECK(reqs[0]["method"] == "server/discover");
  CHECK(reqs[0]["version"] == "2026-07-28");
  CHECK(reqs[1]["method"] == "initialize");
  CHECK(reqs[1]["session"].is_null()); // none before the server gave one
  std::size_t gets = 0, deletes = 0;
  for (const auto& q : reqs) {
    CHECK(q["auth"] == "Bearer " + key); // every request carries the header, its key filled in
    if (q["method"] == "initialize" || q["method"] == "server/discover") continue;
    CHECK(q["session"] == "probe-session-1");
    CHECK(q["version"] == "2025-11-25");
    gets += q["verb"] == "GET";
    deletes += q["verb"] == "DELETE";
  }
  CHECK(gets == 1);    // one stream listens for what the server sends unasked
  CHECK(deletes == 1); // the session is ended with the member
  // the key reached the server only: not the member's output, not its traces
  CHECK(r.out.find(key) == std::string::npos);
  CHECK(r.err.find(key) == std::string::npos);
  for (const auto& type : {"tool_server_ready", "tool_server_relisted", "tool_call", "task_end"})
    for (const auto& e : c.events(type)) CHECK(e.dump().find(key) == std::string::npos);
}

TEST_CASE("tools: a streamable HTTP server that keeps its streams open: an initialize answered by an event goes "
          "on at once, and a call that times out is closed at the transport as well as cancelled", "[process][tools]") {
  const std::string key = "sk-probe-77d1c0ffee2a4b19";
  ProbeOverHttp probe(key, true);
  ToolCapsule c(tool_manifest(probe_entry(probe.url) + "    timeout_secs: 2\n",
                              "    - use: {tool: probe__hang, arguments: {}}\n"
                              "    - use: {tool: probe__after, arguments: {}}\n"
                              "    - reply: '{{tool_results}}'\n"));
  c.env["PROBE_KEY"] = key;
  Ran r = c.run("go");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // hang's stream was closed when its call timed out, before the member's next call was answered
  CHECK(answer_of(r).value("answer", "") == "hang closed");
  auto calls = c.events("tool_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["tool"] == "probe__hang");
  CHECK(calls[0]["is_error"] == true);
  CHECK(calls[1]["is_error"] == false);
  std::vector<std::string> seen;
  for (const auto& q : probe.requests())
    seen.push_back(q["verb"].get<std::string>() + " " + (q["method"].is_string() ? q["method"].get<std::string>() : ""));
  auto at = [&](const std::string& what) { return std::find(seen.begin(), seen.end(), what) - seen.begin(); };
  INFO(json(seen).dump());
  // the initialize stream the server held was closed by the member once its answer came
  CHECK(at("CLOSED initialize") < at("POST tools/list"));
  // under 2025-11-25 the timed-out call is also cancelled by notice, in its session
  CHECK(at("CLOSED tools/call hang") < static_cast<long>(seen.size()));
  CHECK(at("POST notifications/cancelled") < static_cast<long>(seen.size()));
  CHECK(at("DELETE ") < static_cast<long>(seen.size()));
}

TEST_CASE("tools: a streamable HTTP server that refuses the member's key fails its start with E-TOOL-001",
          "[process][tools]") {
  ProbeOverHttp probe("the-right-key-0123456789");
  ToolCapsule c(tool_manifest(probe_entry(probe.url), "    - reply: never\n"));
  c.env["PROBE_KEY"] = "a-wrong-key-9876543210";
  Ran r = c.run("go");
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  const json failure = answer_of(r).value("error", json::object());
  CHECK(failure.value("code", "") == "E-TOOL-001");
  CHECK(failure.value("message", "") ==
        "the tool server 'probe' did not start: answered initialize with HTTP 401: unauthorized: wrong key");
  CHECK(failure.value("fix", "").find("url or headers") != std::string::npos);
  CHECK((r.out + r.err).find("a-wrong-key-9876543210") == std::string::npos);
}

TEST_CASE("tools: a streamable HTTP server that is not there fails the member's start with E-TOOL-001",
          "[process][tools]") {
  const int port = free_port(); // nothing listens there
  ToolCapsule c(tool_manifest("  - name: gone\n    url: http://127.0.0.1:" + std::to_string(port) + "/mcp\n",
                              "    - reply: never\n"));
  Ran r = c.run("go");
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  const json failure = answer_of(r).value("error", json::object());
  CHECK(failure.value("code", "") == "E-TOOL-001");
  CHECK(failure.value("message", "") == "the tool server 'gone' did not start: could not be reached at http://127.0.0.1:" +
                                          std::to_string(port) + "/mcp (connection refused)");
}

TEST_CASE("tools: a 2026-07-28 server (the official SDK v2) is found by server/discover and called statelessly",
          "[process][tools]") {
  const std::string transport = GENERATE(as<std::string>(), "stdio", "http");
  std::unique_ptr<Sdk2OverHttp> over_http;
  std::string entry;
  if (transport == "stdio") {
    entry = "  - name: loud\n    command: [" + std::string(MUR_NODE) + ", " + sdk2_server + ", stdio]\n";
  } else {
    over_http = std::make_unique<Sdk2OverHttp>();
    REQUIRE(over_http->url.rfind("http://127.0.0.1:", 0) == 0);
    entry = "  - name: loud\n    url: " + over_http->url + "\n";
  }
  ToolCapsule c(tool_manifest(entry, "    - use: {tool: loud__shout, arguments: {text: hey there}}\n"
                                     "    - reply: '{{tool_results}}'\n"));
  Ran r = c.run("go");
  INFO(transport << "\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") == "HEY THERE");
  auto ready = c.events("tool_server_ready");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0]["protocol"] == "2026-07-28");
  CHECK(ready[0]["tools"] == json::array({"loud__shout", "loud__wait", "loud__after"}));
  if (over_http) {
    std::vector<std::string> methods;
    for (const auto& q : over_http->requests()) {
      methods.push_back(q.value("method", ""));
      CHECK(q["version"] == "2026-07-28"); // no handshake: each request names its revision
      CHECK(q["mcp_method"] == q["method"]);
    }
    CHECK(methods == std::vector<std::string>{"server/discover", "tools/list", "tools/call"});
  }
}

TEST_CASE("tools: a 2026-07-28 server over HTTP has a call that times out cancelled by closing its request, "
          "with no notice", "[process][tools]") {
  Sdk2OverHttp server;
  REQUIRE(server.url.rfind("http://127.0.0.1:", 0) == 0);
  ToolCapsule c(tool_manifest("  - name: loud\n    url: " + server.url + "\n    timeout_secs: 2\n",
                              "    - use: {tool: loud__wait, arguments: {}}\n"
                              "    - use: {tool: loud__after, arguments: {}}\n"
                              "    - reply: '{{tool_results}}'\n"));
  Ran r = c.run("go");
  INFO(r.out << r.err << server.node.err());
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") == "wait closed"); // closed when it timed out, not at the member's end
  auto calls = c.events("tool_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["is_error"] == true);
  std::vector<std::string> seen;
  for (const auto& q : server.requests())
    seen.push_back(q.value("verb", "") + " " + (q["method"].is_string() ? q["method"].get<std::string>() : ""));
  CHECK(std::find(seen.begin(), seen.end(), "CLOSED tools/call") != seen.end());
  // the revision has no session to route a notice to: none is sent
  CHECK(std::find(seen.begin(), seen.end(), "POST notifications/cancelled") == seen.end());
}
