// a2a_json.hpp — A2A v1.0 objects as ProtoJSON: a door's TaskView out, a peer's Task back in.
//
// Invariant: output names are camelCase and enums are the wire names (`TASK_STATE_*`,
// `ROLE_*`); a terminal task carries an agent status message with one text part; a completed
// task carries the one `response` artifact; `metadata.murmur` appears only when one of busy,
// noAnswer, noAnswerBelow is set; `submitter` is never written. Input accepts camelCase and the
// proto snake_case names and ignores unknown fields.
// Spec: docs/spec/a2a.md §Objects, §Streaming, §ProtoJSON; docs/spec/door.md §Tasks on the wire
// (a task is {id, contextId, status{state, message?}, artifacts?, metadata?}).
#pragma once

#include "messages/wire/a2a_task.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mur::a2a {

using json = nlohmann::json;

// `TASK_STATE_COMPLETED` → completed; also the integer enum values. nullopt when unknown.
std::optional<TaskState> parse_state(const json& v);

// The Task object. `with_artifacts` false omits the key entirely (ListTasks default).
json task_json(const TaskView& t, bool with_artifacts = true);
// The status object of a task ({state, message?}).
json status_json(const TaskView& t);
// The `response` artifact of a completed task.
json response_artifact_json(const TaskView& t);

// StreamResponse wrappers: {"task":…}, {"statusUpdate":…}, {"artifactUpdate":…}.
json task_event(const TaskView& t);
json status_update_event(const TaskView& t);
json artifact_update_event(const TaskView& t);
// A fragment of the answer while the model streams it: appended to the "response" artifact
// (`append` false for a stream's first fragment), never the last chunk — the final
// artifact_update_event replaces it with the whole answer.
json artifact_chunk_event(const TaskView& t, const std::string& fragment, bool append);

// A field by its camelCase name, else its snake_case name; nullptr when neither is present.
const json* field(const json& obj, const char* camel, const char* snake);

// Reads a Task (or a StreamResponse holding one as task/statusUpdate) back into a TaskView.
// Throws std::invalid_argument when it has no id or no known state.
TaskView task_from_json(const json& task);

// Folds one StreamResponse (`result` of an SSE event) into `t`: a task replaces it, an
// artifactUpdate sets the answer, a statusUpdate moves the state. True when the state changed
// (a subscriber's TaskEvent is due). Throws std::invalid_argument on a malformed event.
bool apply_stream_event(TaskView& t, const json& result);

} // namespace mur::a2a
