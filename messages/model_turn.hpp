// model_turn.hpp — one model turn, asked for by a task actor and produced by a model port.
//
// Invariant: a turn either calls members (and so ends the model's turn until their answers
// are delivered), replies (ends the task with an answer), ends without an answer, or fails.
// The model never sees a token, a URL or a port: only member names and texts.
// Seed: "The model calls call-member with the member's name and the whole task."
#pragma once

#include "messages/message_fields.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct MemberText {
  std::string member;
  std::string text;
  MUR_FIELDS(member, text)
};

struct ModelTurnRequest {
  std::string task_id;
  std::string task_text;               // the task as received
  std::int32_t turn = 0;               // 0-based turn number within the task
  std::string member;                  // this member's name
  std::vector<std::string> callees;    // whom call-member may name (roster order)
  std::vector<MemberText> answers;     // latest output per member (its no-answer text if none)
  std::string continuation;            // the last continuation message (fenced answers), or ""
  std::vector<std::string> tool_results; // what the last turn's tool calls returned
  MUR_FIELDS(task_id, task_text, turn, member, callees, answers, continuation, tool_results)
};

struct ModelTurn {
  std::vector<MemberText> calls;       // call-member tool calls (member, task)
  bool replies = false;
  std::string reply;
  bool ends_without_answer = false;
  std::string reason;
  bool fails = false;
  std::string failure;
  MUR_FIELDS(calls, replies, reply, ends_without_answer, reason, fails, failure)
};

} // namespace mur
