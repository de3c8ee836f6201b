// conversation_store.hpp — a threaded member's conversations (`lifecycle.conversation: threaded`):
// the exchanges of each A2A contextId, in the member's memory, held by its door actor.
//
// Invariant: a conversation is keyed by (caller, contextId). The caller is the credential that
// sent the task (`operator`, a declared credential's name, `member:<name>`; "" on a public door,
// where every caller is the same nobody): another caller naming the same contextId reaches a
// conversation of its own, never this one. Only whole exchanges are kept — one task's request,
// every response with its tool calls, every tool result and continuation, its answer — oldest
// first, so a tool result never loses the call it answers. No token, key or URL is ever in one:
// a transcript holds only what the model saw (messages/wire/model_turn.hpp).
// Caps (ConversationCaps): past `max_exchanges` or `max_bytes` in a conversation its oldest
// exchanges are dropped; past `max_conversations` the one used least recently is dropped whole.
// An exchange bigger than `max_bytes` on its own is kept condensed: its request and its answer,
// each cut to half of `max_bytes`. `record` says what it dropped, for the trace.
// Nothing is written to disk: a member that restarts starts with no conversation.
// Rule: a threaded member keeps each A2A contextId's exchange (its own messages, tool calls and
// answers, capped) and continues it when a new message arrives in that context
// (docs/manifest.md §Conversations (`lifecycle.conversation`)).
#pragma once

#include "messages/vocabulary/transcript.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>

namespace mur {

struct ConversationCaps {
  std::size_t max_exchanges = 20;          // exchanges (tasks) kept per conversation
  std::size_t max_bytes = 256 * 1024;      // message bytes kept per conversation
  std::size_t max_conversations = 64;      // conversations kept per member
};

// What one `record` dropped to stay within the caps (all zero/false: nothing).
struct ConversationTrim {
  std::size_t exchanges_dropped = 0;       // oldest exchanges of this conversation (max_exchanges or max_bytes)
  bool condensed = false;                  // the new exchange alone passed max_bytes: request and answer kept
  std::size_t conversations_dropped = 0;   // least recently used conversations (max_conversations)
  bool any() const { return exchanges_dropped > 0 || condensed || conversations_dropped > 0; }
};

// The bytes a message counts for: its text, its tool calls' names and arguments, its call id.
std::size_t message_bytes(const TranscriptMessage& m);

class ConversationStore {
public:
  explicit ConversationStore(ConversationCaps caps = {}) : caps_(caps) {}

  // Every kept message of the caller's conversation in `context_id`, oldest first (empty: none).
  Transcript history(const std::string& caller, const std::string& context_id);
  // Appends one task's exchange (its messages after the system message) to the caller's
  // conversation in `context_id`, then applies the caps.
  ConversationTrim record(const std::string& caller, const std::string& context_id, Transcript exchange);

  std::size_t exchanges(const std::string& caller, const std::string& context_id) const;
  std::size_t bytes(const std::string& caller, const std::string& context_id) const;
  std::size_t conversations() const { return by_key_.size(); }
  const ConversationCaps& caps() const { return caps_; }

private:
  struct Conversation {
    std::deque<Transcript> exchanges;
    std::deque<std::size_t> sizes; // bytes of each exchange
    std::size_t bytes = 0;
    std::uint64_t used = 0;        // when it was last read or written (a counter)
  };
  using Key = std::pair<std::string, std::string>; // (caller, contextId)

  ConversationCaps caps_;
  std::map<Key, Conversation> by_key_;
  std::uint64_t tick_ = 0;
};

} // namespace mur
