// transcript.hpp — one task's conversation with its model, as typed messages: what a task actor
// keeps and hands to a stateless model port (docs/spec/choices.md §Transcript).
//
// Invariant: a message is exactly one of four kinds, built only through the named constructors
// below, so a tool result always carries the id of the call it answers and only an assistant
// message carries tool calls. `arguments` is kept as the model sent it (a JSON text that may
// not even be valid JSON: the runtime answers that with a tool error, it never crashes).
// Rule: a model hands on work with call-member, a callee and the full task — the calls and
// their results are what this records (docs/spec/choices.md §Transcript).
#pragma once

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

// One function call the model made.
struct ToolCall {
  std::string id;        // the model's (or, when a server sent none, the codec's) call id
  std::string name;      // the tool's name
  std::string arguments; // a JSON text, as received
  bool operator==(const ToolCall& o) const { return id == o.id && name == o.name && arguments == o.arguments; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ToolCall& x) {
  return f(caf::meta::type_name("mur::ToolCall"), x.id, x.name, x.arguments);
}

enum class TranscriptRole : std::uint8_t { system, user, assistant, tool };

inline std::string to_string(TranscriptRole r) {
  switch (r) {
  case TranscriptRole::system: return "system";
  case TranscriptRole::user: return "user";
  case TranscriptRole::assistant: return "assistant";
  case TranscriptRole::tool: return "tool";
  }
  return "?";
}

struct TranscriptMessage {
  TranscriptRole role = TranscriptRole::user;
  std::string content;              // system/user/assistant text; a tool result's text
  std::vector<ToolCall> tool_calls; // assistant only
  std::string tool_call_id;         // tool only: the call it answers

  static TranscriptMessage system(std::string text) { return {TranscriptRole::system, std::move(text), {}, {}}; }
  static TranscriptMessage user(std::string text) { return {TranscriptRole::user, std::move(text), {}, {}}; }
  static TranscriptMessage assistant(std::string text, std::vector<ToolCall> calls = {}) {
    return {TranscriptRole::assistant, std::move(text), std::move(calls), {}};
  }
  static TranscriptMessage tool_result(std::string call_id, std::string text) {
    return {TranscriptRole::tool, std::move(text), {}, std::move(call_id)};
  }
  bool operator==(const TranscriptMessage& o) const {
    return role == o.role && content == o.content && tool_calls == o.tool_calls && tool_call_id == o.tool_call_id;
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TranscriptMessage& x) {
  return f(caf::meta::type_name("mur::TranscriptMessage"), x.role, x.content, x.tool_calls, x.tool_call_id);
}

// Not yet registered in message_types.cpp: the session that hands transcripts between actors
// adds mur::TranscriptMessage and std::vector<mur::TranscriptMessage> there.
using Transcript = std::vector<TranscriptMessage>;

} // namespace mur
