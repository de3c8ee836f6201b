// mcp_client_fuzz.cpp — the member's MCP client reading whatever a tool server writes: one line
// as a message, a tools/list result as a page of tools, a tools/call result as the model's tool
// message, a server/discover result as its era. No input may crash it, and a tool it offers always fits the function-name rule.
#include "messages/wire/mcp_client_wire.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  const auto m = mur::mcp_client::read_line(line);
  if (m.kind == mur::mcp_client::Message::Kind::response) {
    const std::vector<std::string> allow{"read", "write"};
    for (const auto* a : {static_cast<const std::vector<std::string>*>(nullptr), &allow}) {
      const auto page = mur::mcp_client::read_tool_page("files", m.result, a);
      if (page.tools.size() != page.bare_names.size()) std::abort();
      for (const auto& t : page.tools)
        if (t.name.size() > 64 || t.name.rfind("files__", 0) != 0) std::abort();
    }
    const auto reply = mur::mcp_client::read_call_result(m.result);
    if (reply.text.size() > 64 * 1024 + 64) std::abort();
    (void)mur::mcp_client::discover_says_modern(m.result); // the 2026-07-28 probe's answer
    if (m.result.is_object() && m.result.contains("resultType") && m.result["resultType"] == "input_required" &&
        !reply.is_error)
      std::abort(); // input mur cannot give is always a tool error
  }
  return 0;
}
