#include "actors/task_own_tools.hpp"

#include "messages/vocabulary/trace_context.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace mur::task_detail {

bool is_own_tool(const TaskSetup& s, const std::string& name) {
  return s.tools && std::any_of(s.own_tools.begin(), s.own_tools.end(), [&](const OwnTool& t) { return t.name == name; });
}

void use_own_tool(task_ptr self, const ToolCall& call, std::function<void(ToolReply)> on_result) {
  auto& st = self->state;
  ++st.own.tool_calls;
  const auto made = self->clock().now();
  const int turn = st.turn;
  const auto sep = call.name.find("__");
  auto done = [=](ToolReply r) {
    trace(self, "tool_call",
          {{"task_id", self->state.setup.task.id}, {"turn", turn}, {"tool", call.name}, {"call_id", call.id},
           {"server", call.name.substr(0, sep)}, {"arguments_bytes", call.arguments.size()},
           {"duration_ms", ms_between(made, self->clock().now())}, {"is_error", r.is_error}});
    on_result(std::move(r));
  };
  self->request(st.setup.tools, caf::infinite, ToolRequest{st.setup.task.id, call,
                                                                   format_traceparent(st.trace_id, tool_span_id(st.setup.task.id, call.id, turn))})
    .then([=](ToolReply& r) { done(std::move(r)); },
          [=](caf::error& err) {
            done(ToolReply{"tool error: " + call.name + " could not be called (" + self->system().render(err) + ").", true});
          });
}

ToolUse read_use(const TaskSetup& s, const ToolCall& call) {
  if (call.name == tool_name::delegate && !s.no_delegation.empty()) {
    ToolUse refused;
    refused.error = "tool error: " + s.no_delegation + " Nothing was sent.";
    return refused;
  }
  if (call.name == tool_name::ask_operator) {
    if (s.ask_operator) return read_ask_operator(call);
    ToolUse refused;
    refused.error = "tool error: this member has no ask-operator tool: its capsule's capabilities.ask_operator is not "
                    "true. Nothing was sent.";
    return refused;
  }
  return read_tool_call(call, s.callees, s.capsules, s.own_tools);
}

} // namespace mur::task_detail
