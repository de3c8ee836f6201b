// libFuzzer target: everything a model server or an agent program sends the runtime, read the
// way the runtime reads it — a non-streamed Chat Completions body, the same bytes as an SSE
// stream of chunks (under small stream caps, so the caps are reached), each tool call's
// arguments for call-member, delegate and end-without-answer, and an MCP request to a turn's
// tool server. A bad input is a ModelFailure, a tool error or an HTTP/JSON-RPC error answer; a
// crash, an uncaught exception or a sanitizer report is a bug.
// The key: every "@@" of the input is also read with the API key in its place, bare and as the
// message of an error object, in bodies, streams, HTTP error replies and transport reasons; any
// text produced that holds the key aborts (no key in any error).
#include "http/chat_completions.hpp"
#include "http/mcp_server.hpp"
#include "http/model_failure.hpp"
#include "http/sse_events.hpp"
#include "messages/vocabulary/secret_redaction.hpp"
#include "messages/wire/runtime_tools.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <variant>

namespace {

const std::string key = "sk-fuzz-KEY-0123456789abcdef";

void no_key(const std::string& text) {
  if (text.find(key) != std::string::npos) std::abort();
}

void no_key(const mur::ModelFailure& f) {
  no_key(f.code);
  no_key(f.message);
  no_key(f.fix);
}

std::string with_key(const std::string& input) {
  std::string out = input;
  for (std::size_t at = 0; (at = out.find("@@", at)) != std::string::npos; at += key.size()) out.replace(at, 2, key);
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> callees{"coder", "tester"}, capsules{"summarizer"};
  const mur::SecretRedaction secrets({key});
  mur::StreamCaps caps;
  caps.text = 512;
  caps.reasoning = 256;
  caps.tool_arguments = 256;
  caps.event = 4096;

  auto read_calls = [&](const mur::ChatResult& r) {
    for (const auto& c : r.tool_calls) (void)mur::read_tool_call(c, callees, capsules);
  };
  const std::string keyed = with_key(input);
  const std::string as_error =
    nlohmann::json{{"error", {{"message", keyed}}}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (const std::string* reply : {&input, &keyed, &as_error}) {
    auto body = mur::parse_chat_response(*reply, secrets);
    if (auto* r = std::get_if<mur::ChatResult>(&body)) read_calls(*r);
    else no_key(std::get<mur::ModelFailure>(body));

    mur::ChatStream stream([](const std::string&) {}, secrets, caps);
    mur::SseEvents events(caps.event);
    events.feed(reply->data(), reply->size(), [&](const std::string& payload) {
      if (auto f = stream.feed(payload)) no_key(*f);
    });
    // The same payload as one event, as a server that sends a bare error line would.
    mur::ChatStream one([](const std::string&) {}, secrets, caps);
    if (auto f = one.feed(*reply)) no_key(*f);
    auto streamed = stream.finish();
    if (auto* r = std::get_if<mur::ChatResult>(&streamed)) read_calls(*r);
    else no_key(std::get<mur::ModelFailure>(streamed));

    const auto now = std::chrono::system_clock::now();
    const std::string url = "http://127.0.0.1:9/v1/chat/completions";
    for (long status : {400L, 401L, 404L, 429L, 500L})
      no_key(mur::classify_http_failure(status, *reply, "", now, "m", url, true, secrets));
    no_key(mur::classify_transport_failure(*reply, url, true, secrets, caps));
    no_key(mur::quote_server_text(*reply, secrets));
    no_key(secrets.redact(*reply));
  }

  for (const char* tool : {mur::tool_name::call_member, mur::tool_name::delegate, mur::tool_name::end_without_answer})
    (void)mur::read_tool_call(mur::ToolCall{"fuzz", tool, input}, callees, capsules);

  mur::PlainRequest mcp;
  mcp.method = "POST";
  mcp.target = "/mcp";
  mcp.headers = {{"Authorization", "Bearer fuzz-token"}, {"Content-Type", "application/json"},
                 {"Accept", "application/json, text/event-stream"}, {"MCP-Protocol-Version", "2025-11-25"}};
  mcp.body = input;
  (void)mur::mcp_step(mcp, {mur::McpTurn{"fuzz-token", callees, capsules, {mur::OwnTool{"files__read_file", "Read.", "{\"type\":\"object\"}"}}}});
  return 0;
}
