// script_model.cpp — the script model actor (see script_model.hpp).
#include "capsule/script_model.hpp"

#include "actors/atoms.hpp"
#include "messages/wire/child_spawn.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/runtime_tools.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace mur {

namespace {

// The model port plus the think timer it sets itself.
using script_model_actor = model_port::extend<caf::reacts_to<think_atom, std::uint64_t>>;

struct ScriptModelState {
  Inference script;
  std::vector<std::regex> routes;                          // compiled `match` of each route
  std::uint64_t next_key = 0;
  std::map<std::uint64_t, std::pair<caf::typed_response_promise<ModelTurn>, ModelTurn>> thinking;
  static inline const char* name = "mur.script_model";
};

// The tool results after the last model response that made tool calls, in call order.
std::string latest_tool_results(const Transcript& transcript) {
  std::string out;
  for (auto it = transcript.rbegin(); it != transcript.rend(); ++it) {
    if (it->role == TranscriptRole::tool) out = it->content + (out.empty() ? "" : "\n") + out;
    else if (it->role == TranscriptRole::assistant && !it->tool_calls.empty()) break;
  }
  return out;
}

// A threaded member's earlier exchanges in this context, as {{history}} shows them: one line per
// request and per answer (`user: …`, `assistant: …`), oldest first; tool calls, tool results and
// continuations are left out. {{history_count}}: how many earlier exchanges there are.
struct History {
  std::string lines;
  int exchanges = 0;
};

History history_of(const ModelTurnRequest& req) {
  History h;
  const auto end = std::min<std::size_t>(req.transcript.size(), 1 + static_cast<std::size_t>(std::max(0, req.history_messages)));
  for (std::size_t i = 1; i < end; ++i) {
    const TranscriptMessage& m = req.transcript[i];
    const bool request = m.role == TranscriptRole::user && (i == 1 || (req.transcript[i - 1].role == TranscriptRole::assistant &&
                                                                       req.transcript[i - 1].tool_calls.empty()));
    const bool answer = m.role == TranscriptRole::assistant && m.tool_calls.empty() &&
                        (i + 1 == end || req.transcript[i + 1].role == TranscriptRole::user);
    if (request) ++h.exchanges;
    if (!request && !answer) continue;
    if (!h.lines.empty()) h.lines += "\n";
    h.lines += (request ? "user: " : "assistant: ") + m.content;
  }
  return h;
}

// Fills {{task}}, {{member}}, {{answer.NAME}}, {{answers}}, {{tool_results}}, {{history}} and {{history_count}} in
// one pass: a filled-in value is never read as a template again; an unknown placeholder stays as written.
std::string fill(const std::string& tpl, const ModelTurnRequest& req) {
  std::string out;
  std::size_t at = 0;
  while (at < tpl.size()) {
    const std::size_t open = tpl.find("{{", at);
    const std::size_t close = open == std::string::npos ? open : tpl.find("}}", open + 2);
    if (open == std::string::npos || close == std::string::npos) {
      out.append(tpl, at, std::string::npos);
      break;
    }
    out.append(tpl, at, open - at);
    const std::string key = tpl.substr(open + 2, close - open - 2);
    if (key == "task") {
      out += req.task_text;
    } else if (key == "member") {
      out += req.member;
    } else if (key == "answers") {
      out += req.continuation;
    } else if (key == "history") {
      out += history_of(req).lines;
    } else if (key == "history_count") {
      out += std::to_string(history_of(req).exchanges);
    } else if (key == "tool_results") { // the results of the latest turn's tool calls, one per line
      out += latest_tool_results(req.transcript);
    } else if (key.rfind("answer.", 0) == 0) { // a member's answer, or a sub-capsule's
      const std::string name = key.substr(7);
      for (const auto& a : req.answers)
        if (a.member == name || a.member == capsule_target(name)) out += a.text;
    } else {
      out.append(tpl, open, close + 2 - open);
    }
    at = close + 2;
  }
  return out;
}

const std::vector<ScriptTurn>& turns_for(const ScriptModelState& st, const std::string& task_text) {
  for (std::size_t i = 0; i < st.routes.size(); ++i)
    if (std::regex_search(task_text, st.routes[i])) return st.script.routes[i].turns;
  return st.script.turns;
}

// An entry as a model response: a reply (calls beside it are not made), else its calls and its
// end-without-answer as tool calls, ending the turn (a script is not asked again in a turn).
ModelTurn play(const ScriptTurn& entry, const ModelTurnRequest& req) {
  ModelTurn t;
  if (entry.fail) {
    t.fails = true;
    t.failure = fill(*entry.fail, req);
    return t;
  }
  if (entry.reply) {
    t.text = fill(*entry.reply, req);
    return t;
  }
  const std::string id_prefix = "script_" + std::to_string(req.turn) + "_";
  for (const auto& u : entry.uses)
    t.tool_calls.push_back(ToolCall{id_prefix + std::to_string(t.tool_calls.size()), u.tool, u.arguments});
  for (const auto& c : entry.calls)
    t.tool_calls.push_back(ToolCall{id_prefix + std::to_string(t.tool_calls.size()), tool_name::call_member,
                                    call_member_arguments(c.member, fill(c.task, req))});
  for (const auto& d : entry.delegations)
    t.tool_calls.push_back(ToolCall{id_prefix + std::to_string(t.tool_calls.size()), tool_name::delegate,
                                    delegate_arguments(d.capsule, fill(d.task, req))});
  if (entry.ask)
    t.tool_calls.push_back(ToolCall{id_prefix + std::to_string(t.tool_calls.size()), tool_name::ask_operator,
                                    ask_operator_arguments(fill(*entry.ask, req))});
  if (entry.end_without_answer)
    t.tool_calls.push_back(ToolCall{id_prefix + std::to_string(t.tool_calls.size()), tool_name::end_without_answer,
                                    end_without_answer_arguments(fill(*entry.end_without_answer, req))});
  return t; // no calls and no reply: an empty answer
}

script_model_actor::behavior_type script_model(script_model_actor::stateful_pointer<ScriptModelState> self,
                                               Inference script) {
  self->state.script = std::move(script);
  for (const auto& r : self->state.script.routes)
    self->state.routes.emplace_back(r.match, std::regex::ECMAScript);
  return {
    [=](const ModelTurnRequest& req) -> caf::result<ModelTurn> {
      const auto& turns = turns_for(self->state, req.task_text);
      if (req.turn < 0 || static_cast<std::size_t>(req.turn) >= turns.size()) {
        return ModelTurn{}; // out of entries: an empty answer
      }
      const ScriptTurn& entry = turns[static_cast<std::size_t>(req.turn)];
      ModelTurn t = play(entry, req);
      if (entry.think_ms <= 0) return t;
      auto rp = self->make_response_promise<ModelTurn>();
      const auto key = self->state.next_key++;
      self->state.thinking.emplace(key, std::make_pair(rp, std::move(t)));
      self->delayed_send(self, std::chrono::milliseconds(entry.think_ms), think_atom_v, key);
      return rp;
    },
    [=](think_atom, std::uint64_t key) {
      auto it = self->state.thinking.find(key);
      if (it == self->state.thinking.end()) return;
      auto [rp, t] = std::move(it->second);
      self->state.thinking.erase(it);
      rp.deliver(std::move(t));
    },
  };
}

} // namespace

model_port spawn_script_model(caf::actor_system& sys, const Inference& script) {
  return model_port{sys.spawn(script_model, script)};
}

} // namespace mur
