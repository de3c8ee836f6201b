// Spans from a member's own trace lines (messages/vocabulary/span_builder.hpp).
#include "messages/vocabulary/span_builder.hpp"
#include "messages/vocabulary/trace_context.hpp"
#include "trace_event_lines.hpp"

#include <catch2/catch.hpp>

using mur::test::ev;

namespace {

const mur::OtelAttribute* find(const mur::OtelSpan& s, const std::string& key) {
  for (const auto& a : s.attributes)
    if (a.key == key) return &a;
  return nullptr;
}
std::string text(const mur::OtelSpan& s, const std::string& key) {
  auto* a = find(s, key);
  return a ? a->value.text : "<none>";
}
std::int64_t number(const mur::OtelSpan& s, const std::string& key) {
  auto* a = find(s, key);
  return a ? a->value.integer : -1;
}

std::vector<mur::OtelSpan> feed(mur::SpanBuilder& b, const nlohmann::json& line) { return b.take(line.dump()); }

} // namespace

TEST_CASE("a task with a model request, a member call and a tool call becomes four spans of its trace", "[otel][spans]") {
  mur::SpanBuilder b;
  const std::string trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  CHECK(feed(b, ev("session_start", 1000, {{"session_id", "ses_1"}, {"formation_id", "frm_1"}, {"formation_member", "coder"},
                                          {"capsule_name", "coder-c"}}))
          .empty());
  CHECK(feed(b, ev("task_start", 1100, {{"task_id", "tsk_1"}, {"context_id", "ctx_1"}, {"origin", "peer"},
                                       {"text", "secret plan"}, {"trace_id", trace},
                                       {"span_id", mur::task_span_id("tsk_1")}, {"parent_span_id", "00f067aa0ba902b7"}}))
          .empty());
  auto chat = feed(b, ev("inference", 1500, {{"task_id", "tsk_1"}, {"turn", 0}, {"step", 0}, {"model", "qwen"},
                                             {"duration_ms", 300}, {"prompt_tokens", 120}, {"completion_tokens", 7},
                                             {"decision", "tool_call"}}));
  REQUIRE(chat.size() == 1);
  CHECK(chat[0].name == "chat qwen");
  CHECK(chat[0].trace_id == trace);
  CHECK(chat[0].span_id == mur::chat_span_id("tsk_1", 0, 0));
  CHECK(chat[0].parent_span_id == mur::task_span_id("tsk_1"));
  CHECK(chat[0].start_ns == 1200000000ull);
  CHECK(chat[0].end_ns == 1500000000ull);
  CHECK(text(chat[0], "gen_ai.operation.name") == "chat");
  CHECK(text(chat[0], "gen_ai.request.model") == "qwen");
  CHECK(text(chat[0], "gen_ai.provider.name") == "openai");
  CHECK(number(chat[0], "gen_ai.usage.input_tokens") == 120);
  CHECK(number(chat[0], "gen_ai.usage.output_tokens") == 7);
  CHECK_FALSE(chat[0].error);

  CHECK(feed(b, ev("member_call_start", 1550, {{"task_id", "tsk_1"}, {"call_id", "mcl_1"}, {"member", "reviewer"},
                                              {"member_task_id", "tsk_9"}}))
          .empty());
  auto call = feed(b, ev("member_call", 1900, {{"task_id", "tsk_1"}, {"call_id", "mcl_1"}, {"member", "reviewer"},
                                              {"member_task_id", "tsk_9"}, {"status", "failed"}, {"duration_ms", 340},
                                              {"since_call_ms", 360}, {"output", "the answer"}, {"task", "review it"}}));
  REQUIRE(call.size() == 1);
  CHECK(call[0].name == "execute_tool call-member");
  CHECK(call[0].span_id == mur::call_span_id("mcl_1"));
  CHECK(call[0].parent_span_id == mur::task_span_id("tsk_1"));
  CHECK(call[0].start_ns == 1540000000ull);
  CHECK(text(call[0], "gen_ai.tool.name") == "call-member");
  CHECK(text(call[0], "gen_ai.tool.call.id") == "mcl_1");
  CHECK(text(call[0], "mur.callee") == "reviewer");
  CHECK(text(call[0], "mur.callee.task.id") == "tsk_9");
  CHECK(call[0].error);
  CHECK(call[0].status_message == "failed");

  auto tool = feed(b, ev("tool_call", 1950, {{"task_id", "tsk_1"}, {"turn", 1}, {"tool", "files__write"}, {"call_id", "c0"},
                                            {"server", "files"}, {"arguments_bytes", 40}, {"duration_ms", 20},
                                            {"is_error", false}}));
  REQUIRE(tool.size() == 1);
  CHECK(tool[0].name == "execute_tool files__write");
  CHECK(tool[0].span_id == mur::tool_span_id("tsk_1", "c0", 1));
  CHECK(text(tool[0], "mur.tool.server") == "files");
  // The runtime's own tools mentioned by an agent program (no server) are covered by their calls.
  CHECK(feed(b, ev("tool_call", 1960, {{"task_id", "tsk_1"}, {"turn", 1}, {"tool", "call-member"}})).empty());

  auto task = feed(b, ev("task_end", 2000, {{"task_id", "tsk_1"}, {"exit_status", "ok"}, {"turns", 2},
                                           {"answer", "secret answer"}, {"state", "completed"}}));
  REQUIRE(task.size() == 1);
  CHECK(task[0].name == "invoke_agent coder");
  CHECK(task[0].span_id == mur::task_span_id("tsk_1"));
  CHECK(task[0].parent_span_id == "00f067aa0ba902b7");
  CHECK(task[0].trace_id == trace);
  CHECK(task[0].start_ns == 1100000000ull);
  CHECK(task[0].end_ns == 2000000000ull);
  CHECK(text(task[0], "gen_ai.agent.name") == "coder");
  CHECK(text(task[0], "gen_ai.conversation.id") == "ctx_1");
  CHECK(text(task[0], "mur.formation.id") == "frm_1");
  CHECK(text(task[0], "mur.session.id") == "ses_1");
  CHECK(text(task[0], "mur.task.id") == "tsk_1");
  CHECK_FALSE(task[0].error);
  // No text of a task or an answer reaches a span.
  for (const auto& spans : {chat, call, tool, task})
    for (const auto& s : spans)
      for (const auto& a : s.attributes) {
        CHECK(a.value.text.find("secret") == std::string::npos);
        CHECK(a.value.text.find("answer") == std::string::npos);
      }

  auto res = b.resource("mur");
  REQUIRE(res.size() >= 3);
  CHECK(res[0].key == "service.name");
  CHECK(res[1].key == "service.instance.id");
  CHECK(res[1].value.text == "ses_1");
}

TEST_CASE("a task without a traceparent is a root of its own trace, and a failed one is an error", "[otel][spans]") {
  mur::SpanBuilder b;
  feed(b, ev("session_start", 0, {{"session_id", "ses_2"}, {"capsule_name", "helper"}}));
  feed(b, ev("task_start", 10, {{"task_id", "tsk_2"}, {"origin", "user"}}));
  auto task = feed(b, ev("task_end", 20, {{"task_id", "tsk_2"}, {"exit_status", "max_turns_reached"}}));
  REQUIRE(task.size() == 1);
  CHECK(task[0].name == "invoke_agent capsule:helper");
  CHECK(task[0].trace_id == mur::trace_id_of_task("tsk_2"));
  CHECK(task[0].parent_span_id.empty());
  CHECK(task[0].error);
  CHECK(text(task[0], "error.type") == "max_turns_reached");
  // Unreadable lines and a task_end of an unknown task give nothing.
  CHECK(b.take("not json").empty());
  CHECK(feed(b, ev("task_end", 30, {{"task_id", "tsk_x"}, {"exit_status", "ok"}})).empty());
}
