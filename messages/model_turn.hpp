// model_turn.hpp — one model turn, asked for by a task actor and produced by a model port.
//
// Invariant: a turn either calls members (and so ends the model's turn until their answers
// are delivered), replies (ends the task with an answer), ends without an answer, or fails.
// The model never sees a token, a URL or a port: only member names and texts.
// Seed: "The model calls call-member with the member's name and the whole task."
#pragma once

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct MemberText {
  std::string member;
  std::string text;
  bool operator==(const MemberText& o) const { return member == o.member && text == o.text; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, MemberText& x) {
  return f(caf::meta::type_name("mur::MemberText"), x.member, x.text);
}

struct ModelTurnRequest {
  std::string task_id;
  std::string task_text;               // the task as received
  std::int32_t turn = 0;               // 0-based turn number within the task
  std::string member;                  // this member's name
  std::vector<std::string> callees;    // whom call-member may name (roster order)
  std::vector<MemberText> answers;     // latest output per member (its no-answer text if none)
  std::string continuation;            // the last continuation message (fenced answers), or ""
  std::vector<std::string> tool_results; // what the last turn's tool calls returned
  bool operator==(const ModelTurnRequest& o) const {
    return task_id == o.task_id && task_text == o.task_text && turn == o.turn && member == o.member &&
           callees == o.callees && answers == o.answers && continuation == o.continuation &&
           tool_results == o.tool_results;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ModelTurnRequest& x) {
  return f(caf::meta::type_name("mur::ModelTurnRequest"), x.task_id, x.task_text, x.turn, x.member,
           x.callees, x.answers, x.continuation, x.tool_results);
}

struct ModelTurn {
  std::vector<MemberText> calls;       // call-member tool calls (member, task)
  bool replies = false;
  std::string reply;
  bool ends_without_answer = false;
  std::string reason;
  bool fails = false;
  std::string failure;
  bool operator==(const ModelTurn& o) const {
    return calls == o.calls && replies == o.replies && reply == o.reply &&
           ends_without_answer == o.ends_without_answer && reason == o.reason && fails == o.fails &&
           failure == o.failure;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ModelTurn& x) {
  return f(caf::meta::type_name("mur::ModelTurn"), x.calls, x.replies, x.reply, x.ends_without_answer,
           x.reason, x.fails, x.failure);
}

} // namespace mur
