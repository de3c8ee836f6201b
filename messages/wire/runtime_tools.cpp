// runtime_tools.cpp — see runtime_tools.hpp.
#include "messages/wire/runtime_tools.hpp"

#include "messages/vocabulary/comma_list.hpp"
#include "messages/vocabulary/strict_json.hpp"

#include <algorithm>

namespace mur {

namespace {

using json = nlohmann::json;

std::string tool_error(const std::string& text) { return "tool error: " + text + " Nothing was sent."; }

const std::string* string_field(const json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

} // namespace

FunctionTool function_tool_of(const OwnTool& tool) {
  auto schema = parse_strict_json(tool.input_schema);
  return FunctionTool{tool.name, tool.description,
                      schema && schema->is_object() ? *schema : json{{"type", "object"}, {"properties", json::object()}}};
}

FunctionTool ask_operator_tool();

std::vector<FunctionTool> runtime_tools(const std::vector<std::string>& callees,
                                        const std::vector<std::string>& capsules, bool ask_operator) {
  if (callees.empty() && capsules.empty()) {
    if (ask_operator) return {ask_operator_tool()};
    return {};
  }
  std::vector<FunctionTool> tools;
  if (!callees.empty())
  tools.push_back(FunctionTool{
    tool_name::call_member,
    "Give a task to another member of your formation. The call returns as soon as that member "
    "holds the task (or is busy, in which case the runtime keeps offering it); the member's answer "
    "is not in the result. After you end your turn, every answer arrives together in one message, "
    "each fenced as coming from its member. One call per member may be outstanding at a time.",
    json{{"type", "object"},
         {"properties",
          {{"member", {{"type", "string"}, {"enum", callees}, {"description", "The member to call."}}},
           {"task", {{"type", "string"}, {"description", "The whole task for that member, in your words: it sees nothing else of this conversation."}}}}},
         {"required", json::array({"member", "task"})},
         {"additionalProperties", false}}});
  if (!capsules.empty())
    tools.push_back(FunctionTool{
      tool_name::delegate,
      "Hand a task to a sub-capsule the runtime starts for it alone. Returns at once, like call-member; "
      "the sub-capsule's answer arrives after you end your turn, with any member answers, fenced as "
      "coming from capsule:<name>. One delegation per capsule may be outstanding at a time.",
      json{{"type", "object"},
           {"properties",
            {{"capsule", {{"type", "string"}, {"enum", capsules}, {"description", "The capsule to delegate to."}}},
             {"task", {{"type", "string"}, {"description", "The whole task for it, in your words: it sees nothing else of this conversation."}}}}},
           {"required", json::array({"capsule", "task"})},
           {"additionalProperties", false}}});
  tools.push_back(FunctionTool{
    tool_name::end_without_answer,
    "End this task without an answer, when it was sent to you by another member and an answer you "
    "need did not come. Your caller is told the reason plainly. Not for tasks from a person, and "
    "not while a call is still out.",
    json{{"type", "object"},
         {"properties", {{"reason", {{"type", "string"}, {"description", "Why there is no answer, as a sentence."}}}}},
         {"required", json::array({"reason"})},
         {"additionalProperties", false}}});
  if (ask_operator) tools.push_back(ask_operator_tool());
  return tools;
}

FunctionTool ask_operator_tool() {
  return FunctionTool{
    tool_name::ask_operator,
    "Ask the person operating this formation a question, when you cannot go on without their answer "
    "(a decision, an approval, a missing fact). Your task waits until they answer; the answer is this "
    "tool's result. Ask one clear question at a time.",
    json{{"type", "object"},
         {"properties", {{"question", {{"type", "string"}, {"description", "The question, as the person will read it."}}}}},
         {"required", json::array({"question"})},
         {"additionalProperties", false}}};
}

ToolUse read_ask_operator(const ToolCall& call) {
  ToolUse use;
  auto args = parse_strict_json(call.arguments.empty() ? "{}" : call.arguments);
  const std::string* q = args && args->is_object() ? string_field(*args, "question") : nullptr;
  if (q == nullptr || q->find_first_not_of(" \t\r\n") == std::string::npos) {
    use.error = tool_error("ask-operator needs \"question\", a string that is not blank.");
    return use;
  }
  use.kind = ToolUse::Kind::ask_operator;
  use.reason = *q;
  return use;
}

std::string ask_operator_arguments(const std::string& question) { return json{{"question", question}}.dump(); }


namespace {

// The capsule's prompt, then who the member is and how its calls work.
std::string rules_message(const std::string& capsule_prompt, const std::string& member,
                          const std::vector<std::string>& callees, const std::vector<std::string>& capsules) {
  std::string out = capsule_prompt;
  if (!out.empty() && out.back() != '\n') out += "\n";
  if (!out.empty()) out += "\n";
  if (member.empty()) {
    out += "You are an agent run by mur, answering the task you are given.";
  } else {
    out += "You are \"" + member + "\", a member of a formation of agents run by mur.";
  }
  const std::string delegation =
    capsules.empty() ? std::string()
                     : "\n- You may hand a task to a sub-capsule with the delegate tool: " + comma_list(capsules) +
                         ". The runtime starts it for that task alone; its answer arrives like a member's, fenced "
                         "as coming from capsule:<name>.";
  if (callees.empty()) {
    out += capsules.empty() ? " You may call no other member: answer the task yourself."
                            : " You may call no other member." + delegation +
                                "\n- Your final reply, with no tool call and no delegation still out, is your answer to the task.";
    return out;
  }
  out += " You may give work to these members with the call-member tool: " + comma_list(callees) +
         ".\n"
         "- A call returns as soon as the member holds the task; its answer is not in the result. End "
         "your turn (reply without a tool call) and the runtime adds every answer to the conversation "
         "in one message, each fenced as coming from its member.\n"
         "- Call a member again only after its answer has arrived.\n"
         "- Never present an answer of your own as another member's. If a member gave no answer, say "
         "so.\n"
         "- When the task came from another member and an answer you need did not come, you may end "
         "without an answer (end-without-answer) and give the reason.\n"
         "- Your final reply, with no tool call and no call still out, is your answer to the task." +
         delegation;
  return out;
}

} // namespace

std::string system_message(const std::string& capsule_prompt, const std::string& member,
                           const std::vector<std::string>& callees, const std::vector<std::string>& capsules,
                           bool ask_operator) {
  std::string out = rules_message(capsule_prompt, member, callees, capsules);
  if (ask_operator)
    out += "\n- When you cannot go on without a person's decision or a fact only they know, ask them with the "
           "ask-operator tool; its result is their answer.";
  return out;
}

namespace {

// A call-member or delegate use: its arguments name `who` (one of `names`) and the task, both
// strings; anything else is the tool error the model reads.
ToolUse addressed(ToolUse::Kind kind, const json& args, const char* who,
                  const std::vector<std::string>& names, std::string ToolUse::*target) {
  ToolUse use;
  const std::string* whom = string_field(args, who);
  const std::string* task = string_field(args, "task");
  if (whom == nullptr || task == nullptr) {
    const char* tool = kind == ToolUse::Kind::delegate ? tool_name::delegate : tool_name::call_member;
    use.error = tool_error(std::string(tool) + " needs \"" + who + "\" (one of: " + comma_list(names) +
                           ") and \"task\", both strings.");
    return use;
  }
  use.kind = kind;
  use.*target = *whom;
  use.task = *task;
  return use;
}

} // namespace

ToolUse read_tool_call(const ToolCall& call, const std::vector<std::string>& callees,
                       const std::vector<std::string>& capsules, const std::vector<OwnTool>& own) {
  ToolUse use;
  const bool is_call = call.name == tool_name::call_member;
  const bool is_end = call.name == tool_name::end_without_answer;
  const bool is_delegate = call.name == tool_name::delegate;
  if (!is_call && !is_end && !is_delegate) {
    std::vector<std::string> offered;
    for (const auto& t : runtime_tools(callees, capsules)) offered.push_back(t.name);
    for (const auto& t : own) offered.push_back(t.name);
    use.error = tool_error("there is no tool named \"" + call.name + "\"; the tools are " +
                           (offered.empty() ? std::string("none") : comma_list(offered)) + ".");
    return use;
  }
  if (is_call && callees.empty()) {
    use.error = tool_error("this member has no call-member tool: the roster lets it call no member.");
    return use;
  }
  if (is_delegate && capsules.empty()) {
    use.error = tool_error("this member has no delegate tool: its capsule's capabilities.spawn.allow lists no capsule.");
    return use;
  }
  const std::string text = call.arguments.empty() ? "{}" : call.arguments;
  auto args = parse_strict_json(text);
  if (!args || !args->is_object()) {
    use.error = tool_error("the arguments of " + call.name + " must be a JSON object" +
                           (is_call ? " with \"member\" and \"task\"." : is_delegate ? " with \"capsule\" and \"task\"." : " with \"reason\"."));
    return use;
  }
  if (is_end) {
    const std::string* reason = string_field(*args, "reason");
    if (reason == nullptr) {
      use.error = tool_error("end-without-answer needs \"reason\", a string.");
      return use;
    }
    use.kind = ToolUse::Kind::end_without_answer;
    use.reason = *reason;
    return use;
  }
  if (is_delegate) return addressed(ToolUse::Kind::delegate, *args, "capsule", capsules, &ToolUse::capsule);
  return addressed(ToolUse::Kind::call_member, *args, "member", callees, &ToolUse::member);
}

std::string call_member_arguments(const std::string& member, const std::string& task) {
  return json{{"member", member}, {"task", task}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string delegate_arguments(const std::string& capsule, const std::string& task) {
  return json{{"capsule", capsule}, {"task", task}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string end_without_answer_arguments(const std::string& reason) {
  return json{{"reason", reason}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace mur
