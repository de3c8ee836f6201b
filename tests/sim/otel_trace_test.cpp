// One operator task is one trace across members and a delegated child (docs/observability.md):
// the traceparent each callee's task receives is its caller's execute_tool span, and the span
// builder turns the members' own trace lines into one tree. The members' lines stand for what
// the real exporter would be handed (the sim collects them instead of posting).
#include "formation_fixture.hpp"

#include "messages/vocabulary/span_builder.hpp"
#include "messages/vocabulary/trace_context.hpp"

#include <map>
#include <set>

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

struct otel_fixture : formation_fixture {
  // Every span of `lines` (one member's or child's trace), as the exporter would get them.
  static std::vector<OtelSpan> spans_of(const std::vector<std::string>& lines) {
    SpanBuilder b;
    std::vector<OtelSpan> out;
    for (const auto& l : lines)
      for (auto& s : b.take(l)) out.push_back(std::move(s));
    return out;
  }
  std::vector<std::string> lines(const std::string& member) { return ask<std::vector<std::string>>(spawner, trace_atom_v, member); }
  std::vector<std::string> child_lines(const std::string& member, const std::string& call_id) {
    auto port = ask<caf::actor>(spawner, children_atom_v, member);
    return ask<std::vector<std::string>>(port, trace_atom_v, call_id);
  }
};

std::string attr(const OtelSpan& s, const std::string& key) {
  for (const auto& a : s.attributes)
    if (a.key == key) return a.value.kind == OtelValue::Kind::text ? a.value.text : std::to_string(a.value.integer);
  return "<none>";
}

const OtelSpan* named(const std::vector<OtelSpan>& spans, const std::string& name) {
  for (const auto& s : spans)
    if (s.name == name) return &s;
  return nullptr;
}

} // namespace

TEST_CASE_METHOD(otel_fixture, "a chain with a delegation is one trace whose callee spans hang under their callers' execute_tool spans",
                 "[sim][otel]") {
  Knobs k;
  k.installed.emplace("summarizer@1.0.0",
                      manifest("name: summarizer\nversion: 1.0.0\ninference: {turns: [{reply: 'short {{task}}'}]}\n"));
  const std::string coder =
    "name: coder-c\nversion: 1.0.0\n"
    "inference: {turns: [{delegate: {capsule: summarizer, task: 'sum {{task}}'}}, "
    "{call: {member: reviewer, task: 'Review: {{task}}'}}, {reply: 'Coder done; {{answer.reviewer}}'}]}\n"
    "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\nexports: {peer_tasks: {accept: true}}\n"
    "capabilities: {network: {allow: [localhost]}, spawn: {allow: [summarizer@1.0.0]}}\n"
    "network: {authentication: {scheme: bearer}}\n";
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: coder, task: 'Write: {{task}}'}}, "
                                        "{reply: 'Lead: {{answer.coder}}'}]}\n")},
          {"coder", coder},
          {"reviewer", callee_yaml("reviewer-c", "inference: {turns: [{reply: 'Approved ({{task}})'}]}\n")}},
         {{"lead", {"coder"}}, {"coder", {"reviewer"}}}, "add a flag", k);
  run_for(3s);
  REQUIRE(progress_event("ended"));

  // What each task was handed, as task_start records it.
  const auto lead_start = events("lead", "task_start").at(0);
  const auto coder_start = events("coder", "task_start").at(0);
  const auto reviewer_start = events("reviewer", "task_start").at(0);
  const auto lead_call = events("lead", "member_call_start").at(0);
  const auto coder_call = events("coder", "member_call_start").at(0);
  const auto dlg = events("coder", "delegation_start").at(0);
  const std::string trace_id = lead_start["trace_id"];
  CHECK(trace_id == trace_id_of_task(lead_start["task_id"])); // the operator's task starts the trace
  CHECK(!lead_start.contains("parent_span_id"));
  CHECK(lead_start["span_id"] == task_span_id(lead_start["task_id"]));
  CHECK(coder_start["trace_id"] == trace_id);
  CHECK(coder_start["parent_span_id"] == call_span_id(lead_call["call_id"]));
  CHECK(reviewer_start["trace_id"] == trace_id);
  CHECK(reviewer_start["parent_span_id"] == call_span_id(coder_call["call_id"]));

  // The spans: every member's and the child's, in one trace.
  auto lead = spans_of(lines("lead")), coder_spans = spans_of(lines("coder")), reviewer = spans_of(lines("reviewer"));
  auto child = spans_of(child_lines("coder", dlg["call_id"]));
  std::vector<OtelSpan> all;
  for (auto* v : {&lead, &coder_spans, &reviewer, &child}) all.insert(all.end(), v->begin(), v->end());
  std::set<std::string> traces, ids;
  for (const auto& s : all) {
    traces.insert(s.trace_id);
    ids.insert(s.span_id);
  }
  CHECK(traces == std::set<std::string>{trace_id});
  CHECK(ids.size() == all.size()); // no two spans share an id

  const OtelSpan* lead_task = named(lead, "invoke_agent lead");
  const OtelSpan* lead_exec = named(lead, "execute_tool call-member");
  const OtelSpan* coder_task = named(coder_spans, "invoke_agent coder");
  const OtelSpan* coder_exec = named(coder_spans, "execute_tool call-member");
  const OtelSpan* coder_dlg = named(coder_spans, "execute_tool delegate");
  const OtelSpan* reviewer_task = named(reviewer, "invoke_agent reviewer");
  const OtelSpan* child_task = named(child, "invoke_agent capsule:summarizer");
  REQUIRE(lead_task);
  REQUIRE(lead_exec);
  REQUIRE(coder_task);
  REQUIRE(coder_exec);
  REQUIRE(coder_dlg);
  REQUIRE(reviewer_task);
  REQUIRE(child_task);
  CHECK(lead_task->parent_span_id.empty());
  CHECK(lead_exec->parent_span_id == lead_task->span_id);
  CHECK(coder_task->parent_span_id == lead_exec->span_id);
  CHECK(coder_exec->parent_span_id == coder_task->span_id);
  CHECK(coder_dlg->parent_span_id == coder_task->span_id);
  CHECK(reviewer_task->parent_span_id == coder_exec->span_id);
  CHECK(child_task->parent_span_id == coder_dlg->span_id);
  CHECK(attr(*coder_dlg, "gen_ai.tool.name") == "delegate");
  CHECK(attr(*lead_exec, "mur.callee") == "coder");
  CHECK(attr(*lead_exec, "gen_ai.tool.call.id") == lead_call["call_id"]);
  CHECK(attr(*coder_task, "mur.task.id") == coder_start["task_id"]);
  CHECK(attr(*coder_task, "gen_ai.agent.name") == "coder");
  CHECK_FALSE(coder_task->error);
  // A chat span per model request, each under its task.
  std::size_t chats = 0;
  for (const auto& s : all)
    if (attr(s, "gen_ai.operation.name") == "chat") {
      ++chats;
      CHECK((s.parent_span_id == lead_task->span_id || s.parent_span_id == coder_task->span_id ||
             s.parent_span_id == reviewer_task->span_id || s.parent_span_id == child_task->span_id));
    }
  CHECK(chats == events("lead", "inference").size() + events("coder", "inference").size() +
                   events("reviewer", "inference").size() + 1);
}

TEST_CASE_METHOD(otel_fixture, "a task sent with a W3C traceparent continues that trace under the sender's span",
                 "[sim][otel]") {
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{reply: 'done'}]}\n")}}, {}, "");
  run_for(200ms);
  DoorRequest r = from_operator(DoorMethod::send_message);
  r.text = "hello";
  r.return_immediately = true;
  r.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  CHECK(ask<DoorReply>(door_of("lead"), r).ok());
  run_for(1s);
  const auto start = events("lead", "task_start").at(0);
  CHECK(start["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK(start["parent_span_id"] == "00f067aa0ba902b7");
}
