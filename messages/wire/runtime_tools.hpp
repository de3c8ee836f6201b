// runtime_tools.hpp — the tools the runtime offers a model, and the rules it adds to the system
// prompt, in the runtime's own words: the one place they are written.
//
// Invariant: a model is offered exactly the runtime's tools — `call-member` only when the member
// has callees (its `member` an enum of their names), `delegate` only when its capsule may spawn
// sub-capsules (`capsule` an enum of their names), `end-without-answer` beside either — and a tool
// call the model makes is read back by `read_tool_call` alone: arguments that are not a JSON
// object, an unknown tool, a member outside the enum or a missing field become a tool error
// that says what was wrong and that nothing was sent; nothing the model sends can crash the
// runtime (arguments are parsed with the depth bound of strict_json).
// Rule (docs/spec/choices.md §Real models): the runtime's tools are function tools —
// call-member {member: enum, task}, end-without-answer {reason}, delegate {capsule: enum, task}.
// Rule: call-member names a callee and carries the whole task; the model never answers in a
// callee's place (docs/spec/formation.md §How a member gives another work).
#pragma once

#include "messages/vocabulary/transcript.hpp"
#include "messages/wire/own_tools.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mur {

namespace tool_name {
inline constexpr const char* call_member = "call-member";
inline constexpr const char* end_without_answer = "end-without-answer";
inline constexpr const char* delegate = "delegate";
inline constexpr const char* ask_operator = "ask-operator";
} // namespace tool_name

// One function tool offered to the model.
struct FunctionTool {
  std::string name;
  std::string description;
  nlohmann::json parameters; // a JSON Schema object
};

// One of the capsule's own tools as the model is offered it (an input schema that is not a JSON
// object is offered as an empty object schema).
FunctionTool function_tool_of(const OwnTool& tool);

// The tools a member with these callees and these spawnable capsules is offered (none without
// either), then ask-operator when its manifest sets capabilities.ask_operator.
std::vector<FunctionTool> runtime_tools(const std::vector<std::string>& callees,
                                        const std::vector<std::string>& capsules = {}, bool ask_operator = false);

// ask-operator {question}: offered to a member whose manifest sets capabilities.ask_operator.
FunctionTool ask_operator_tool();

// The system message: the capsule's own prompt (may be empty), then the runtime's rules — who
// this member is, whom it may call, how calls and their answers work.
std::string system_message(const std::string& capsule_prompt, const std::string& member,
                           const std::vector<std::string>& callees,
                           const std::vector<std::string>& capsules = {}, bool ask_operator = false);

// A tool call, read.
struct ToolUse {
  enum class Kind { call_member, delegate, end_without_answer, ask_operator, error } kind = Kind::error;
  std::string member; // call_member
  std::string capsule; // delegate
  std::string task;   // call_member, delegate
  std::string reason; // end_without_answer; ask_operator: the question
  std::string error;  // error: the tool result the model gets (a tool error; nothing was sent)
};

// `own`: the capsule's own tools (their calls never come here: an unknown name's error lists them
// beside the runtime's).
ToolUse read_tool_call(const ToolCall& call, const std::vector<std::string>& callees,
                       const std::vector<std::string>& capsules = {}, const std::vector<OwnTool>& own = {});

// An ask-operator call: its one argument, a question that is not blank.
ToolUse read_ask_operator(const ToolCall& call);

// Builds a call's arguments text as a model would send it (the script model uses this).
std::string call_member_arguments(const std::string& member, const std::string& task);
std::string end_without_answer_arguments(const std::string& reason);
std::string delegate_arguments(const std::string& capsule, const std::string& task);
std::string ask_operator_arguments(const std::string& question);

} // namespace mur
