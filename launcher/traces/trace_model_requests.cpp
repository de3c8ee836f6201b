#include "launcher/traces/trace_model_requests.hpp"

#include "launcher/traces/trace_fields.hpp"

namespace mur {
namespace {

using json = nlohmann::json;
using trace_fields::num;
using trace_fields::str;

using trace_fields::known;
json known(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

// A token count under either name the events use (input_tokens, or mur's prompt_tokens).
std::int64_t count(const json& e, const char* name, const char* other) {
  const std::int64_t n = num(e, name, -1);
  return n >= 0 ? n : num(e, other, -1);
}

} // namespace

ModelRequest model_request_of(const json& e, std::int64_t at) {
  ModelRequest r;
  r.turn = static_cast<int>(num(e, "turn"));
  r.step = static_cast<int>(num(e, "step"));
  r.model = str(e, "model");
  r.decision = str(e, "decision");
  r.duration_ms = num(e, "duration_ms", -1);
  r.started_at = at - (r.duration_ms > 0 ? r.duration_ms : 0);
  r.input_tokens = count(e, "input_tokens", "prompt_tokens");
  r.output_tokens = count(e, "output_tokens", "completion_tokens");
  r.error = str(e, "error");
  return r;
}

json model_requests_json(const std::vector<ModelRequest>& requests, std::int64_t t0) {
  json out = json::array();
  for (const auto& r : requests)
    out.push_back(json{{"turn", r.turn}, {"step", r.step}, {"model", known(r.model)}, {"decision", r.decision},
                       {"start_ms", r.started_at - t0}, {"started_at", r.started_at},
                       {"duration_ms", known(r.duration_ms)}, {"input_tokens", known(r.input_tokens)},
                       {"output_tokens", known(r.output_tokens)}, {"error", known(r.error)}});
  return out;
}

} // namespace mur
