// task_own_tools.hpp — how a task reads a tool call: the capsule's own tools (to its tool port)
// and the runtime's (read back by runtime_tools.hpp, with this member's own refusals first).
//
// Invariant: a call of an own tool is counted in the task's usage before it is sent, traced with
// its outcome and never its texts, and always answered (a tool port that fails is a tool error);
// a delegation past the depth limit and an ask-operator the capsule does not allow are tool
// errors, with nothing sent.
// Rule: the capsule's own tools beside the runtime's (docs/tools.md).
#pragma once

#include "actors/task_state.hpp"
#include "messages/wire/runtime_tools.hpp"

#include <functional>
#include <string>

namespace mur::task_detail {

bool is_own_tool(const TaskSetup& s, const std::string& name);
// A call of one of the capsule's own tools: its result reaches `on_result`.
void use_own_tool(task_ptr self, const ToolCall& call, std::function<void(ToolReply)> on_result);
// A runtime tool call as this task reads it.
ToolUse read_use(const TaskSetup& s, const ToolCall& call);

} // namespace mur::task_detail
