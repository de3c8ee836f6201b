#include "messages/vocabulary/span_builder.hpp"

#include "messages/vocabulary/trace_context.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace mur {
namespace {

using json = nlohmann::json;

std::string text_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// An integer field, or `fallback` when it is missing or not an integer.
std::int64_t int_of(const json& j, const char* key, std::int64_t fallback = -1) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

constexpr std::uint64_t ns_per_ms = 1000000;

std::uint64_t ns_of_ms(std::int64_t ms) { return ms > 0 ? static_cast<std::uint64_t>(ms) * ns_per_ms : 0; }

// [end - ms, end] in ns (a negative or missing duration: an instant).
void place(OtelSpan& s, std::int64_t end_ms, std::int64_t took_ms) {
  s.end_ns = ns_of_ms(end_ms);
  s.start_ns = ns_of_ms(end_ms - (took_ms > 0 ? took_ms : 0));
}

} // namespace

std::string SpanBuilder::trace_of(const std::string& task_id) const {
  auto it = tasks_.find(task_id);
  return it != tasks_.end() ? it->second.trace_id : trace_id_of_task(task_id);
}

void SpanBuilder::add_ids(OtelSpan& s, const std::string& task_id) const {
  if (!formation_id_.empty()) s.attributes.push_back(otel_attr("mur.formation.id", formation_id_));
  s.attributes.push_back(otel_attr("mur.member", member_));
  s.attributes.push_back(otel_attr("mur.session.id", session_id_));
  s.attributes.push_back(otel_attr("mur.task.id", task_id));
}

std::vector<OtelAttribute> SpanBuilder::resource(const std::string& service_name) const {
  std::vector<OtelAttribute> r{otel_attr("service.name", service_name)};
  if (!session_id_.empty()) r.push_back(otel_attr("service.instance.id", session_id_));
  if (!formation_id_.empty()) r.push_back(otel_attr("mur.formation.id", formation_id_));
  if (!member_.empty()) r.push_back(otel_attr("mur.member", member_));
  if (!capsule_.empty()) r.push_back(otel_attr("mur.capsule", capsule_));
  if (!spawned_by_.empty()) r.push_back(otel_attr("mur.spawned_by", spawned_by_));
  if (!delegation_.empty()) r.push_back(otel_attr("mur.delegation.id", delegation_));
  return r;
}

std::vector<OtelSpan> SpanBuilder::take(const std::string& line) {
  const json ev = json::parse(line, nullptr, false);
  if (!ev.is_object()) return {};
  const std::string type = text_of(ev, "event_type");
  const std::int64_t at_ms = int_of(ev, "timestamp", 0);
  const std::string task_id = text_of(ev, "task_id");

  if (type == "session_start") {
    session_id_ = text_of(ev, "session_id");
    formation_id_ = text_of(ev, "formation_id");
    capsule_ = text_of(ev, "capsule_name");
    member_ = text_of(ev, "formation_member");
    spawned_by_ = text_of(ev, "spawned_by");
    delegation_ = text_of(ev, "delegation");
    if (member_.empty()) member_ = capsule_.empty() ? std::string("mur") : "capsule:" + capsule_;
    return {};
  }
  if (type == "task_start" && !task_id.empty()) {
    OpenTask t;
    t.trace_id = text_of(ev, "trace_id");
    if (t.trace_id.empty()) t.trace_id = trace_id_of_task(task_id);
    t.parent_span_id = text_of(ev, "parent_span_id");
    t.context_id = text_of(ev, "context_id");
    t.origin = text_of(ev, "origin");
    t.start_ns = ns_of_ms(at_ms);
    tasks_[task_id] = std::move(t);
    return {};
  }
  if (type == "task_end" && !task_id.empty()) {
    auto it = tasks_.find(task_id);
    if (it == tasks_.end()) return {};
    const OpenTask t = std::move(it->second);
    tasks_.erase(it);
    OtelSpan s;
    s.trace_id = t.trace_id;
    s.span_id = task_span_id(task_id);
    s.parent_span_id = t.parent_span_id;
    s.name = "invoke_agent " + member_;
    s.kind = OtelSpanKind::server;
    s.start_ns = t.start_ns;
    s.end_ns = std::max(t.start_ns, ns_of_ms(at_ms));
    s.attributes = {otel_attr("gen_ai.operation.name", "invoke_agent"), otel_attr("gen_ai.agent.name", member_),
                    otel_attr("gen_ai.agent.id", session_id_)};
    if (!t.context_id.empty()) s.attributes.push_back(otel_attr("gen_ai.conversation.id", t.context_id));
    add_ids(s, task_id);
    if (!t.origin.empty()) s.attributes.push_back(otel_attr("mur.task.origin", t.origin));
    const std::string exit = text_of(ev, "exit_status");
    s.attributes.push_back(otel_attr("mur.task.exit_status", exit));
    if (auto turns = int_of(ev, "turns"); turns >= 0) s.attributes.push_back(otel_attr("mur.task.turns", turns));
    if (exit != "ok") {
      s.error = true;
      s.status_message = exit;
      s.attributes.push_back(otel_attr("error.type", exit.empty() ? std::string("_OTHER") : exit));
    }
    return {std::move(s)};
  }
  if (type == "inference" && !task_id.empty()) {
    const std::string model = text_of(ev, "model");
    const std::int64_t turn = int_of(ev, "turn", 0), step = int_of(ev, "step", 0);
    OtelSpan s;
    s.trace_id = trace_of(task_id);
    s.span_id = chat_span_id(task_id, turn, step);
    s.parent_span_id = task_span_id(task_id);
    s.name = model.empty() ? "chat" : "chat " + model;
    s.kind = OtelSpanKind::client;
    place(s, at_ms, int_of(ev, "duration_ms", 0));
    s.attributes = {otel_attr("gen_ai.operation.name", "chat")};
    if (!model.empty()) { // an http member: it speaks OpenAI's Chat Completions (docs/observability.md)
      s.attributes.push_back(otel_attr("gen_ai.provider.name", "openai"));
      s.attributes.push_back(otel_attr("gen_ai.request.model", model));
      s.attributes.push_back(otel_attr("gen_ai.response.model", model));
    }
    if (auto in = int_of(ev, "prompt_tokens"); in >= 0) s.attributes.push_back(otel_attr("gen_ai.usage.input_tokens", in));
    if (auto out = int_of(ev, "completion_tokens"); out >= 0)
      s.attributes.push_back(otel_attr("gen_ai.usage.output_tokens", out));
    add_ids(s, task_id);
    s.attributes.push_back(otel_attr("mur.turn", turn));
    s.attributes.push_back(otel_attr("mur.step", step));
    if (auto retries = int_of(ev, "retries"); retries > 0) s.attributes.push_back(otel_attr("mur.retries", retries));
    if (text_of(ev, "decision") == "error") {
      s.error = true;
      s.status_message = "model request failed";
      s.attributes.push_back(otel_attr("error.type", "model_error"));
    }
    return {std::move(s)};
  }
  if ((type == "member_call" || type == "delegation") && !task_id.empty()) {
    const std::string call_id = text_of(ev, "call_id");
    if (call_id.empty()) return {};
    const bool child = type == "delegation";
    const std::string tool = child ? "delegate" : "call-member";
    OtelSpan s;
    s.trace_id = trace_of(task_id);
    s.span_id = call_span_id(call_id);
    s.parent_span_id = task_span_id(task_id);
    s.name = "execute_tool " + tool;
    s.kind = OtelSpanKind::client;
    std::int64_t took = int_of(ev, "since_call_ms");
    if (took < 0) took = int_of(ev, "duration_ms", 0);
    place(s, at_ms, took);
    s.attributes = {otel_attr("gen_ai.operation.name", "execute_tool"), otel_attr("gen_ai.tool.name", tool),
                    otel_attr("gen_ai.tool.call.id", call_id)};
    add_ids(s, task_id);
    s.attributes.push_back(otel_attr("mur.call.id", call_id));
    if (child) {
      s.attributes.push_back(otel_attr("mur.capsule.callee", text_of(ev, "capsule")));
      if (auto c = text_of(ev, "child_task_id"); !c.empty()) s.attributes.push_back(otel_attr("mur.callee.task.id", c));
    } else {
      s.attributes.push_back(otel_attr("mur.callee", text_of(ev, "member")));
      if (auto c = text_of(ev, "member_task_id"); !c.empty()) s.attributes.push_back(otel_attr("mur.callee.task.id", c));
    }
    const std::string status = text_of(ev, "status");
    s.attributes.push_back(otel_attr("mur.call.status", status));
    if (status != "completed") {
      s.error = true;
      s.status_message = status;
      s.attributes.push_back(otel_attr("error.type", status.empty() ? std::string("_OTHER") : status));
    }
    return {std::move(s)};
  }
  if (type == "tool_call" && !task_id.empty() && ev.contains("server")) { // an own tool's call, ended
    const std::string tool = text_of(ev, "tool"), call_id = text_of(ev, "call_id");
    OtelSpan s;
    s.trace_id = trace_of(task_id);
    s.span_id = tool_span_id(task_id, call_id, int_of(ev, "turn", 0));
    s.parent_span_id = task_span_id(task_id);
    s.name = "execute_tool " + tool;
    s.kind = OtelSpanKind::client;
    place(s, at_ms, int_of(ev, "duration_ms", 0));
    s.attributes = {otel_attr("gen_ai.operation.name", "execute_tool"), otel_attr("gen_ai.tool.name", tool)};
    if (!call_id.empty()) s.attributes.push_back(otel_attr("gen_ai.tool.call.id", call_id));
    add_ids(s, task_id);
    s.attributes.push_back(otel_attr("mur.tool.server", text_of(ev, "server")));
    if (auto e = ev.find("is_error"); e != ev.end() && e->is_boolean() && e->get<bool>()) {
      s.error = true;
      s.status_message = "tool error";
      s.attributes.push_back(otel_attr("error.type", "tool_error"));
    }
    return {std::move(s)};
  }
  return {};
}

} // namespace mur
