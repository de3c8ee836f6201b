// model_turn.hpp — one model request, asked for by a task actor and answered by a model port.
//
// Invariant: the task actor owns the conversation; a request carries all of it (`transcript`,
// system message first), so a model port keeps no state between requests. An answer is either a
// failure, or the model's text with the tool calls it made (each with an id, its arguments as
// the model sent them). The model never sees a token, a URL or a port: only member names and
// texts. A port whose turns end with their tool calls (the script model) says so with
// `asks_again_after_tools = false`; a chat model is asked again, in the same turn, with the
// tool results, and ends its turn by answering without tool calls.
// Rule: a model hands on work with call-member: a callee's name and the whole task
// (docs/spec/formation.md §How a member gives another work).
#pragma once

#include "messages/vocabulary/message_fields.hpp"
#include "messages/vocabulary/transcript.hpp"
#include "messages/wire/own_tools.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct MemberText {
  std::string member;
  std::string text;
  MUR_FIELDS(member, text)
};

// The latest outcome of a member's (or a sub-capsule's) call in a task: its ending word
// (CallStatus: completed, failed, …) and its answer, or its no-answer text.
struct MemberAnswer {
  std::string member; // a member name, or "capsule:NAME"
  std::string status;
  std::string text;
  MUR_FIELDS(member, status, text)
};

struct ModelTurnRequest {
  std::string task_id;
  std::string task_text;               // the task as received
  std::int32_t turn = 0;               // 0-based turn within the task (a continuation starts one)
  std::int32_t step = 0;               // 0-based request within the turn (after tool results)
  std::string member;                  // this member's name ("" outside a formation)
  std::vector<std::string> callees;    // whom call-member may name (roster order); empty ⇒ no tools
  std::vector<std::string> capsules;   // whom delegate may name (spawn.allow order); empty ⇒ no delegate
  std::vector<MemberAnswer> answers;   // latest outcome per member, and per sub-capsule as
                                       // "capsule:NAME" (its no-answer text if none)
  std::string continuation;            // the last continuation message (fenced answers), or ""
  Transcript transcript;               // the whole conversation so far
  std::int32_t history_messages = 0;   // transcript[1 .. history_messages] are the earlier exchanges of this
                                       // task's context (a threaded member: actors/conversation_store.hpp)
  std::vector<OwnTool> tools;          // the capsule's own tools, offered beside the runtime's
  bool ask_operator = false;           // ask-operator is offered (capabilities.ask_operator)
  std::string traceparent;             // W3C traceparent of this request's chat span (docs/observability.md)
  MUR_FIELDS(task_id, task_text, turn, step, member, callees, capsules, answers, continuation, transcript,
             history_messages, tools, ask_operator, traceparent)
};

// What the trace records of one model request (never a key, never a prompt).
struct ModelCallStats {
  std::string model;                   // the model that answered (as the server named it)
  std::int64_t duration_ms = 0;        // from the first attempt's send to the last byte
  std::int64_t first_token_ms = -1;    // to the first streamed event of the last attempt; -1: none
  std::int64_t prompt_tokens = -1;     // -1: not reported
  std::int64_t completion_tokens = -1;
  std::int64_t reasoning_tokens = -1;  // of completion_tokens, the reasoning ones; -1: not reported
  std::string finish_reason;           // as sent ("" when none)
  std::int32_t retries = 0;
  std::int64_t reasoning_bytes = 0;    // reasoning_content received (not part of the answer)
  bool cut = false;                    // finish_reason length: the text was cut short
  std::string stderr_tail;             // an agent program's turn that succeeded: the end of its stderr,
                                       // secrets and its turn's token written out ("" when it wrote none)
  MUR_FIELDS(model, duration_ms, first_token_ms, prompt_tokens, completion_tokens, reasoning_tokens, finish_reason, retries,
             reasoning_bytes, cut, stderr_tail)
};

struct ModelTurn {
  std::string text;                    // what the model said
  std::vector<ToolCall> tool_calls;    // the runtime's tools it called, in order
  bool asks_again_after_tools = false; // true: ask again with the tool results, same turn
  bool fails = false;
  std::string failure;                 // the task's status text: "<code>: <message> Fix: <fix>"
  ModelCallStats stats;                // filled by ports that talk to a model server
  MUR_FIELDS(text, tool_calls, asks_again_after_tools, fails, failure, stats)
};

// Pushed by a streaming model port to its requester while a response arrives: the text so far
// comes in order, fragment by fragment; the ModelTurn that follows holds all of it.
struct ModelText {
  std::string task_id;
  std::string fragment;
  MUR_FIELDS(task_id, fragment)
};

// A tool call an agent program makes while its turn runs (transport: process, through the
// loopback tool server), asked of the task whose turn it is; answered once its result is known
// (for call-member: once the callee holds the task, is busy, or the call is refused).
struct ToolRequest {
  std::string task_id;
  ToolCall call;
  std::string traceparent; // W3C traceparent of the calling task's span ("": none; docs/observability.md)
  MUR_FIELDS(task_id, call, traceparent)
};

struct ToolReply {
  std::string text;   // the same result an http model gets
  bool is_error = false;
  MUR_FIELDS(text, is_error)
};

} // namespace mur
