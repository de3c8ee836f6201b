// trace_model_requests.hpp — a task's model requests, read from its `inference` events, for the
// trace tree's tasks (`model_requests`, docs/traces.md §`mur trace show TARGET`) and the view's timeline.
//
// Invariant: one request per `inference` event, in event order; a request ends at its event's
// timestamp and starts `duration_ms` before it (a model that reports no duration — a script
// model — gives a request of no length, started at its event); a count the event lacks or holds
// as a non-integer is unknown (-1, null in JSON), never 0. Pure: no file, no clock.
// Rule: a timeline shows a bar per model request (docs/traces.md §Watching in a browser).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct ModelRequest {
  int turn = 0, step = 0;
  std::string model;            // "" when the model port names none
  std::string decision;         // tool_call | end_turn | error
  std::int64_t started_at = 0;  // unix ms
  std::int64_t duration_ms = -1; // -1: not reported
  std::int64_t input_tokens = -1, output_tokens = -1; // -1: not reported
  std::string error;            // the failure, for decision error
};

// The request an `inference` event (timestamp `at`) records.
ModelRequest model_request_of(const nlohmann::json& inference, std::int64_t at);

// [{turn, step, model, decision, start_ms, started_at, duration_ms, input_tokens, output_tokens, error}]
// with start_ms counted from `t0`; unknown values are null.
nlohmann::json model_requests_json(const std::vector<ModelRequest>& requests, std::int64_t t0);

} // namespace mur
