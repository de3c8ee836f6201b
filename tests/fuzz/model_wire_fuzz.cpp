// libFuzzer target: everything a model server or an agent program sends the runtime, read the
// way the runtime reads it — a non-streamed Chat Completions body, the same bytes as an SSE
// stream of chunks, each tool call's arguments for call-member, delegate and end-without-answer,
// and an MCP request to a turn's tool server. A bad input is a ModelFailure, a tool error or an
// HTTP/JSON-RPC error answer; a crash, an uncaught exception or a sanitizer report is a bug.
#include "http/chat_completions.hpp"
#include "http/mcp_server.hpp"
#include "http/sse_events.hpp"
#include "messages/runtime_tools.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> callees{"coder", "tester"}, capsules{"summarizer"};

  auto read_calls = [&](const mur::ChatResult& r) {
    for (const auto& c : r.tool_calls) (void)mur::read_tool_call(c, callees, capsules);
  };
  auto body = mur::parse_chat_response(input);
  if (auto* r = std::get_if<mur::ChatResult>(&body)) read_calls(*r);

  mur::ChatStream stream([](const std::string&) {});
  mur::SseEvents events;
  events.feed(input.data(), input.size(), [&](const std::string& payload) { (void)stream.feed(payload); });
  auto streamed = stream.finish();
  if (auto* r = std::get_if<mur::ChatResult>(&streamed)) read_calls(*r);

  for (const char* tool : {mur::tool_name::call_member, mur::tool_name::delegate, mur::tool_name::end_without_answer})
    (void)mur::read_tool_call(mur::ToolCall{"fuzz", tool, input}, callees, capsules);

  mur::PlainRequest mcp;
  mcp.method = "POST";
  mcp.target = "/mcp";
  mcp.headers = {{"Authorization", "Bearer fuzz-token"}, {"Content-Type", "application/json"},
                 {"Accept", "application/json, text/event-stream"}, {"MCP-Protocol-Version", "2025-11-25"}};
  mcp.body = input;
  (void)mur::mcp_step(mcp, {mur::McpTurn{"fuzz-token", callees, capsules}});
  return 0;
}
