#include "http/a2a_json.hpp"
#include "http/budget_json.hpp"
#include "messages/vocabulary/iso_time.hpp"

#include <stdexcept>

namespace mur::a2a {

std::optional<TaskState> parse_state(const json& v) {
  if (v.is_string()) return task_state_named(v.get_ref<const std::string&>());
  if (v.is_number_integer()) {
    switch (v.get<int>()) {
    case 1: return TaskState::submitted;
    case 2: return TaskState::working;
    case 3: return TaskState::completed;
    case 4: return TaskState::failed;
    case 5: return TaskState::canceled;
    case 6: return TaskState::input_required;
    case 7: return TaskState::rejected;
    default: return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

std::string hex_of(const std::string& id) {
  auto u = id.find('_');
  return u == std::string::npos ? id : id.substr(u + 1);
}

json text_part(const std::string& text) { return json{{"text", text}, {"mediaType", "text/plain"}}; }

// The text a terminal status message carries.
std::string status_message_text(const TaskView& t) {
  if (!t.status_text.empty()) return t.status_text;
  if (t.state == TaskState::completed) return t.answer;
  return "the task ended " + state_word(t.state);
}

std::string string_at(const json& obj, const char* camel, const char* snake) {
  const json* v = field(obj, camel, snake);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

// The concatenated text parts of a message or artifact.
std::string parts_text(const json& holder) {
  std::string out;
  if (!holder.is_object() || !holder.contains("parts") || !holder["parts"].is_array()) return out;
  for (const auto& p : holder["parts"])
    if (p.is_object() && p.contains("text") && p["text"].is_string()) out += p["text"].get<std::string>();
  return out;
}

void read_status(TaskView& t, const json& status) {
  if (!status.is_object()) throw std::invalid_argument("status is not an object");
  const json* st = field(status, "state", "state");
  auto s = st ? parse_state(*st) : std::nullopt;
  if (!s) throw std::invalid_argument("status has no known state");
  t.state = *s;
  if (status.contains("message")) t.status_text = parts_text(status["message"]);
}

void read_metadata(TaskView& t, const json& task) {
  if (!task.contains("metadata") || !task["metadata"].is_object()) return;
  const json& md = task["metadata"];
  if (!md.contains("murmur") || !md["murmur"].is_object()) return;
  const json& m = md["murmur"];
  if (m.contains("busy") && m["busy"].is_boolean()) t.busy = m["busy"].get<bool>();
  const json* na = field(m, "noAnswer", "no_answer");
  if (na && na->is_boolean()) t.no_answer = na->get<bool>();
  const json* below = field(m, "noAnswerBelow", "no_answer_below");
  if (below && below->is_array())
    for (const auto& e : *below)
      if (e.is_object() && e.contains("member") && e["member"].is_string() && e.contains("status") &&
          e["status"].is_string())
        t.no_answer_below.push_back({e["member"].get<std::string>(), e["status"].get<std::string>()});
  if (auto u = m.find("usage"); u != m.end()) t.usage = read_usage(*u);
}

void read_artifacts(TaskView& t, const json& artifacts) {
  if (!artifacts.is_array()) return;
  for (const auto& a : artifacts) {
    const std::string id = a.is_object() ? string_at(a, "artifactId", "artifact_id") : "";
    if (id == "response") t.answer = parts_text(a);
  }
}

} // namespace

const json* field(const json& obj, const char* camel, const char* snake) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(camel);
  if (it != obj.end()) return &*it;
  it = obj.find(snake);
  return it != obj.end() ? &*it : nullptr;
}

json status_json(const TaskView& t) {
  json s{{"state", to_string(t.state)}};
  if (t.updated_ms > 0) s["timestamp"] = iso_utc_ms(t.updated_ms);
  if (is_terminal(t.state) || t.state == TaskState::input_required) // the reason, the answer or the question
    s["message"] = json{{"messageId", "msg_" + hex_of(t.id) + "_status"},
                        {"contextId", t.context_id},
                        {"taskId", t.id},
                        {"role", "ROLE_AGENT"},
                        {"parts", json::array({text_part(status_message_text(t))})}};
  return s;
}

json response_artifact_json(const TaskView& t) {
  return json{{"artifactId", "response"}, {"name", "response"}, {"parts", json::array({text_part(t.answer)})}};
}

json task_json(const TaskView& t, bool with_artifacts) {
  json j{{"id", t.id}, {"contextId", t.context_id}, {"status", status_json(t)}};
  if (with_artifacts && t.state == TaskState::completed) j["artifacts"] = json::array({response_artifact_json(t)});
  json murmur = json::object();
  if (t.busy) murmur["busy"] = true;
  if (t.no_answer) murmur["noAnswer"] = true;
  if (!t.no_answer_below.empty()) {
    json below = json::array();
    for (std::size_t i = 0; i < t.no_answer_below.size() && i < max_no_answer_below; ++i)
      below.push_back({{"member", t.no_answer_below[i].member}, {"status", t.no_answer_below[i].status}});
    murmur["noAnswerBelow"] = below;
  }
  if (is_terminal(t.state) && !t.usage.is_zero()) murmur["usage"] = usage_json(t.usage);
  if (!murmur.empty()) j["metadata"] = json{{"murmur", murmur}};
  return j;
}

json task_event(const TaskView& t) { return json{{"task", task_json(t)}}; }

json status_update_event(const TaskView& t) {
  json u{{"taskId", t.id}, {"contextId", t.context_id}, {"status", status_json(t)}};
  json md = task_json(t, false);
  if (md.contains("metadata")) u["metadata"] = md["metadata"];
  return json{{"statusUpdate", u}};
}

json artifact_update_event(const TaskView& t) {
  return json{{"artifactUpdate",
               {{"taskId", t.id}, {"contextId", t.context_id}, {"artifact", response_artifact_json(t)},
                {"lastChunk", true}}}};
}

json artifact_chunk_event(const TaskView& t, const std::string& fragment, bool append) {
  json artifact{{"artifactId", "response"}, {"name", "response"}, {"parts", json::array({text_part(fragment)})}};
  return json{{"artifactUpdate",
               {{"taskId", t.id}, {"contextId", t.context_id}, {"artifact", std::move(artifact)}, {"append", append},
                {"lastChunk", false}}}};
}

TaskView task_from_json(const json& task) {
  if (!task.is_object()) throw std::invalid_argument("task is not an object");
  TaskView t;
  t.id = string_at(task, "id", "id");
  if (t.id.empty()) throw std::invalid_argument("task has no id");
  t.context_id = string_at(task, "contextId", "context_id");
  const json* status = field(task, "status", "status");
  if (!status) throw std::invalid_argument("task has no status");
  read_status(t, *status);
  if (task.contains("artifacts")) read_artifacts(t, task["artifacts"]);
  read_metadata(t, task);
  return t;
}

bool apply_stream_event(TaskView& t, const json& result) {
  if (!result.is_object()) throw std::invalid_argument("stream event is not an object");
  if (result.contains("task")) {
    const TaskState before = t.state;
    const bool first = t.id.empty();
    t = task_from_json(result["task"]);
    return first || before != t.state;
  }
  if (const json* a = field(result, "artifactUpdate", "artifact_update")) {
    if (a->contains("artifact")) read_artifacts(t, json::array({(*a)["artifact"]}));
    return false;
  }
  if (const json* u = field(result, "statusUpdate", "status_update")) {
    const json* status = field(*u, "status", "status");
    if (!status) throw std::invalid_argument("statusUpdate has no status");
    const TaskState before = t.state;
    read_status(t, *status);
    read_metadata(t, *u);
    if (t.id.empty()) t.id = string_at(*u, "taskId", "task_id");
    if (t.context_id.empty()) t.context_id = string_at(*u, "contextId", "context_id");
    return before != t.state;
  }
  throw std::invalid_argument("stream event holds no task, statusUpdate or artifactUpdate");
}

} // namespace mur::a2a
