// trace_event_lines.hpp — trace events written by hand for the readers' tests (trace show,
// mur view, delegation trees): one JSON object per event, as a member's trace line holds it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mur::test {

// An event of `type` at `at` (milliseconds), with the event's own fields.
inline nlohmann::json ev(const std::string& type, std::int64_t at, nlohmann::json fields = nlohmann::json::object()) {
  fields["event_type"] = type;
  fields["timestamp"] = at;
  return fields;
}

} // namespace mur::test
