// chat_script.hpp — a scripted chat model for task scenes: it answers request k with response k
// of its script, as a chat model would (asked again in the same turn with its tool results).
#pragma once

#include "task_scene.hpp"

#include "messages/wire/runtime_tools.hpp"

namespace task_scene {

// Answers request k with response k of its script (the last one again when it runs out); a
// response with `stream` set first pushes its text to the requester as ModelText fragments.
struct ChatScript {
  std::vector<ModelTurn> responses;
  std::size_t next = 0;
  bool stream = false;
};
inline caf::behavior chat_model(caf::stateful_actor<ChatScript>* self, std::vector<ModelTurn> responses, bool stream) {
  self->state.responses = std::move(responses);
  self->state.stream = stream;
  return {[=](const ModelTurnRequest& req) -> ModelTurn {
    auto& st = self->state;
    const ModelTurn t = st.responses.at(std::min(st.next, st.responses.size() - 1));
    ++st.next;
    if (st.stream && !t.text.empty()) {
      auto requester = caf::actor_cast<caf::actor>(self->current_sender());
      const std::size_t half = t.text.size() / 2;
      self->send(requester, ModelText{req.task_id, t.text.substr(0, half)});
      self->send(requester, ModelText{req.task_id, t.text.substr(half)});
    }
    return t;
  }};
}

inline ToolCall tc(std::string id, std::string name, std::string args) { return ToolCall{std::move(id), std::move(name), std::move(args)}; }
inline ToolCall call_member(std::string id, const std::string& member, const std::string& task) {
  return tc(std::move(id), tool_name::call_member, call_member_arguments(member, task));
}

inline ModelTurn tools(std::vector<ToolCall> calls, std::string text = "") {
  ModelTurn t;
  t.text = std::move(text);
  t.tool_calls = std::move(calls);
  t.asks_again_after_tools = true;
  t.stats.model = "scripted";
  return t;
}
inline ModelTurn says(std::string text) {
  ModelTurn t;
  t.text = std::move(text);
  t.asks_again_after_tools = true;
  t.stats.model = "scripted";
  return t;
}

// A task scene whose model is a chat script.
struct chat_scene : scene {
  void play(std::vector<ModelTurn> responses, std::string submitter = "operator", int max_turns = 10,
            bool stream = false, std::map<std::string, CallStart> starts = {}) {
    start_with(sys.spawn(chat_model, std::move(responses), stream), std::move(submitter), {"coder", "tester"},
               std::move(starts), max_turns);
  }
  const Transcript& transcript(std::size_t request) { return requests().at(request).transcript; }
};

} // namespace task_scene
