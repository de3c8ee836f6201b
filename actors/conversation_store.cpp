// conversation_store.cpp — a threaded member's conversations (see conversation_store.hpp).
#include "actors/conversation_store.hpp"

#include "messages/vocabulary/text_cut.hpp"

#include <algorithm>
#include <string_view>

namespace mur {
namespace {

constexpr std::string_view condensed_marker = "\n[runtime: cut to keep the conversation within its size]";

std::size_t exchange_bytes(const Transcript& t) {
  std::size_t n = 0;
  for (const auto& m : t) n += message_bytes(m);
  return n;
}

// An exchange too big to keep whole: its request (the first message) and its answer (the last
// message, without tool calls), each cut to half the cap, marker included.
Transcript condense(Transcript t, std::size_t max_bytes) {
  const std::size_t half = max_bytes / 2;
  const std::size_t room = half > condensed_marker.size() ? half - condensed_marker.size() : 0;
  Transcript out;
  if (t.empty()) return out;
  TranscriptMessage request = TranscriptMessage::user(std::move(t.front().content));
  cut_to(request.content, room, condensed_marker);
  out.push_back(std::move(request));
  if (t.size() > 1 && t.back().role == TranscriptRole::assistant) {
    TranscriptMessage answer = TranscriptMessage::assistant(std::move(t.back().content));
    cut_to(answer.content, room, condensed_marker);
    out.push_back(std::move(answer));
  }
  return out;
}

} // namespace

std::size_t message_bytes(const TranscriptMessage& m) {
  std::size_t n = m.content.size() + m.tool_call_id.size();
  for (const auto& c : m.tool_calls) n += c.id.size() + c.name.size() + c.arguments.size();
  return n;
}

Transcript ConversationStore::history(const std::string& caller, const std::string& context_id) {
  Transcript out;
  auto it = by_key_.find(Key{caller, context_id});
  if (it == by_key_.end()) return out;
  it->second.used = ++tick_;
  for (const auto& e : it->second.exchanges) out.insert(out.end(), e.begin(), e.end());
  return out;
}

ConversationTrim ConversationStore::record(const std::string& caller, const std::string& context_id,
                                           Transcript exchange) {
  ConversationTrim trim;
  if (exchange.empty() || caps_.max_exchanges == 0 || caps_.max_conversations == 0) return trim;
  std::size_t size = exchange_bytes(exchange);
  if (size > caps_.max_bytes) {
    exchange = condense(std::move(exchange), caps_.max_bytes);
    size = exchange_bytes(exchange);
    trim.condensed = true;
  }
  auto& c = by_key_[Key{caller, context_id}];
  c.used = ++tick_;
  c.exchanges.push_back(std::move(exchange));
  c.sizes.push_back(size);
  c.bytes += size;
  // The oldest exchanges go first; the newest one always stays (it fits: condensed above).
  while (c.exchanges.size() > 1 && (c.exchanges.size() > caps_.max_exchanges || c.bytes > caps_.max_bytes)) {
    c.bytes -= c.sizes.front();
    c.exchanges.pop_front();
    c.sizes.pop_front();
    ++trim.exchanges_dropped;
  }
  while (by_key_.size() > caps_.max_conversations) {
    auto oldest = std::min_element(by_key_.begin(), by_key_.end(),
                                   [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
    by_key_.erase(oldest);
    ++trim.conversations_dropped;
  }
  return trim;
}

std::size_t ConversationStore::exchanges(const std::string& caller, const std::string& context_id) const {
  auto it = by_key_.find(Key{caller, context_id});
  return it == by_key_.end() ? 0 : it->second.exchanges.size();
}

std::size_t ConversationStore::bytes(const std::string& caller, const std::string& context_id) const {
  auto it = by_key_.find(Key{caller, context_id});
  return it == by_key_.end() ? 0 : it->second.bytes;
}

} // namespace mur
