#include "actors/task_state.hpp"

#include "messages/vocabulary/text_cut.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

namespace mur::task_detail {

std::int64_t ms_between(caf::actor_clock::time_point a, caf::actor_clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

void trace(task_ptr self, const char* type, const nlohmann::json& fields) {
  if (!self->state.setup.trace) return;
  self->send(self->state.setup.trace,
             TraceEvent{type, fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
}

bool cut_output(std::string& text) { return cut_to(text, answer_cap, answer_cut_marker); }

std::string capped(std::string text) {
  cut_output(text);
  return text;
}

} // namespace mur::task_detail
