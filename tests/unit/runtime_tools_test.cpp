// The runtime's tools as a model sees them, and a model's tool calls read back: `delegate`
// beside `call-member` and `end-without-answer` (docs/spec/choices.md §Real models).
#include "messages/wire/runtime_tools.hpp"

#include <catch2/catch.hpp>

using namespace mur;

namespace {
std::vector<std::string> names(const std::vector<FunctionTool>& tools) {
  std::vector<std::string> out;
  for (const auto& t : tools) out.push_back(t.name);
  return out;
}
} // namespace

TEST_CASE("delegate is offered only with spawnable capsules, its capsule an enum of them", "[tools][delegation]") {
  CHECK(runtime_tools({}, {}).empty());
  CHECK(names(runtime_tools({"coder"}, {})) == std::vector<std::string>{"call-member", "end-without-answer"});
  CHECK(names(runtime_tools({}, {"summarizer"})) == std::vector<std::string>{"delegate", "end-without-answer"});
  const auto both = runtime_tools({"coder"}, {"summarizer", "checker"});
  REQUIRE(names(both) == std::vector<std::string>{"call-member", "delegate", "end-without-answer"});
  const auto& schema = both[1].parameters;
  CHECK(schema["properties"]["capsule"]["enum"] == nlohmann::json::array({"summarizer", "checker"}));
  CHECK(schema["required"] == nlohmann::json::array({"capsule", "task"}));
  CHECK(schema["additionalProperties"] == false);
  const std::string sys = system_message("", "lead", {}, {"summarizer"});
  CHECK(sys.find("delegate tool: summarizer") != std::string::npos);
  CHECK(sys.find("capsule:<name>") != std::string::npos);
  CHECK(system_message("", "lead", {}, {}).find("delegate") == std::string::npos);
}

TEST_CASE("a delegate call is read back, and every malformed one is a tool error", "[tools][delegation]") {
  const std::vector<std::string> capsules{"summarizer"};
  ToolUse use = read_tool_call(ToolCall{"1", "delegate", delegate_arguments("summarizer", "sum it")}, {}, capsules);
  CHECK(use.kind == ToolUse::Kind::delegate);
  CHECK(use.capsule == "summarizer");
  CHECK(use.task == "sum it");
  // Outside the enum it is still read: the task actor refuses it with the names it may use.
  CHECK(read_tool_call(ToolCall{"1", "delegate", delegate_arguments("other", "x")}, {}, capsules).capsule == "other");
  auto error_of = [&](const ToolCall& c, const std::vector<std::string>& caps) {
    ToolUse u = read_tool_call(c, {}, caps);
    CHECK(u.kind == ToolUse::Kind::error);
    return u.error;
  };
  CHECK(error_of(ToolCall{"1", "delegate", delegate_arguments("summarizer", "x")}, {}).find("no delegate tool") != std::string::npos);
  CHECK(error_of(ToolCall{"1", "delegate", "{\"capsule\":\"summarizer\"}"}, capsules).find("delegate needs \"capsule\" (one of: summarizer)") != std::string::npos);
  CHECK(error_of(ToolCall{"1", "delegate", "[1]"}, capsules).find("with \"capsule\" and \"task\"") != std::string::npos);
  CHECK(error_of(ToolCall{"1", "delegate", "{\"capsule\":1,\"task\":\"x\"}"}, capsules).find("both strings") != std::string::npos);
  CHECK(error_of(ToolCall{"1", "spawn", "{}"}, capsules).find("the tools are delegate, end-without-answer.") != std::string::npos);
  // The capsule's own tools are named too: a model that misspelt one learns the right name.
  const ToolUse misspelt = read_tool_call(ToolCall{"1", "files__read", "{}"}, {"coder"}, {},
                                          {OwnTool{"files__read_file", "Read a file.", "{}"}});
  CHECK(misspelt.error.find("there is no tool named \"files__read\"; the tools are call-member, end-without-answer, "
                            "files__read_file.") != std::string::npos);
  CHECK(error_of(ToolCall{"1", "delegate", std::string(100000, '[')}, capsules).find("JSON object") != std::string::npos);
}
