#include "actors/task_trace_fields.hpp"

#include "messages/wire/child_spawn.hpp"
#include "messages/vocabulary/token_price.hpp"

namespace mur {

nlohmann::json inference_fields(const std::string& task_id, int turn, int step, const ModelTurn& t) {
  const char* decision = t.fails ? "error" : !t.tool_calls.empty() ? "tool_call" : "end_turn";
  nlohmann::json f{{"task_id", task_id}, {"turn", turn}, {"step", step}, {"decision", decision}};
  if (!t.tool_calls.empty()) f["tool_calls"] = t.tool_calls.size();
  const auto& s = t.stats;
  if (!s.model.empty()) {
    f["model"] = s.model;
    f["duration_ms"] = s.duration_ms;
    if (s.first_token_ms >= 0) f["first_token_ms"] = s.first_token_ms;
    if (s.prompt_tokens >= 0) f["prompt_tokens"] = s.prompt_tokens;
    if (s.completion_tokens >= 0) f["completion_tokens"] = s.completion_tokens;
    if (s.reasoning_tokens >= 0) f["reasoning_tokens"] = s.reasoning_tokens;
    if (!s.finish_reason.empty()) f["finish_reason"] = s.finish_reason;
    f["retries"] = s.retries;
    if (s.reasoning_bytes > 0) f["reasoning_bytes"] = s.reasoning_bytes;
    if (!s.stderr_tail.empty()) f["stderr_tail"] = s.stderr_tail;
    if (s.cut) f["cut"] = true;
  }
  if (t.fails) f["error"] = t.failure;
  return f;
}

nlohmann::json call_fields(const std::string& task_id, const RoundCall& c, const std::string& task_text,
                           const std::string& status, std::int64_t duration_ms, std::int64_t since_call_ms,
                           const std::string& output, bool truncated, bool delivered) {
  const bool child = is_capsule_target(c.member);
  nlohmann::json f{{"task_id", task_id}, {"call_id", c.call_id}};
  f[child ? "capsule" : "member"] = child ? capsule_of(c.member) : c.member;
  if (!c.member_task_id.empty()) f[child ? "child_task_id" : "member_task_id"] = c.member_task_id;
  f["status"] = status;
  f["task"] = task_text;
  f["duration_ms"] = duration_ms;
  f["since_call_ms"] = since_call_ms;
  f["output"] = output;
  f["truncated"] = truncated;
  f["delivered"] = delivered;
  return f;
}

nlohmann::json budget_fields(const Budget& b) {
  nlohmann::json f = nlohmann::json::object();
  for (Spend s : {Spend::tokens, Spend::model_requests, Spend::tool_calls, Spend::calls})
    if (limit_of(b, s) != no_limit) f[limit_name(s)] = limit_of(b, s);
  return f;
}

nlohmann::json usage_fields(const Usage& u) {
  const bool split = split_known(u);
  return {{"tokens", u.tokens},
          {"model_requests", u.model_requests},
          {"tool_calls", u.tool_calls},
          {"calls", u.calls},
          {"input_tokens", split ? nlohmann::json(u.input_tokens) : nlohmann::json(nullptr)},
          {"output_tokens", split ? nlohmann::json(u.output_tokens) : nlohmann::json(nullptr)},
          {"reasoning_tokens", split && reasoning_known(u) ? nlohmann::json(u.reasoning_tokens) : nlohmann::json(nullptr)}};
}

void add_usage_fields(nlohmann::json& end, const Usage& own, const Usage& total, const Budget& budget) {
  end["usage"] = usage_fields(total);
  if (!(own == total)) end["own_usage"] = usage_fields(own);
  if (!budget.bounds_nothing()) end["budget"] = budget_fields(budget);
}

} // namespace mur
