// A threaded member's conversations (actors/conversation_store.hpp): whole exchanges in order,
// one conversation per (caller, contextId), the oldest exchange dropped past a cap, the least
// recently used conversation dropped past the count, an exchange too big alone kept condensed.
// And the contextId a call carries to its callee (actors/callee_context.hpp).
#include "actors/callee_context.hpp"
#include "actors/conversation_store.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace mur;

namespace {

// One task's exchange: its request, a call it made and the call's result, its answer.
Transcript exchange(const std::string& request, const std::string& answer) {
  return {TranscriptMessage::user(request),
          TranscriptMessage::assistant("", {ToolCall{"c1", "call-member", R"({"member":"coder","task":"x"})"}}),
          TranscriptMessage::tool_result("c1", "started"), TranscriptMessage::assistant(answer)};
}

std::string texts(const Transcript& t) {
  std::string out;
  for (const auto& m : t) out += to_string(m.role) + ":" + m.content + "|";
  return out;
}

} // namespace

TEST_CASE("a conversation keeps whole exchanges in the order they completed", "[conversation]") {
  ConversationStore store;
  CHECK(store.history("operator", "ctx_a").empty());
  CHECK_FALSE(store.record("operator", "ctx_a", exchange("one", "first")).any());
  CHECK_FALSE(store.record("operator", "ctx_a", exchange("two", "second")).any());
  const Transcript h = store.history("operator", "ctx_a");
  REQUIRE(h.size() == 8);
  CHECK(texts(h) == "user:one|assistant:|tool:started|assistant:first|user:two|assistant:|tool:started|assistant:second|");
  CHECK(h[1].tool_calls.size() == 1);  // the call stays with its result
  CHECK(h[2].tool_call_id == "c1");
  CHECK(store.exchanges("operator", "ctx_a") == 2);
}

TEST_CASE("another caller naming the same contextId has a conversation of its own", "[conversation]") {
  ConversationStore store;
  store.record("member:lead", "ctx_shared", exchange("lead asked", "lead answered"));
  CHECK(store.history("member:reviewer", "ctx_shared").empty());
  CHECK(store.history("operator", "ctx_shared").empty());
  CHECK(store.history("member:lead", "ctx_other").empty());
  store.record("member:reviewer", "ctx_shared", exchange("reviewer asked", "reviewer answered"));
  CHECK(texts(store.history("member:lead", "ctx_shared")).find("reviewer") == std::string::npos);
  CHECK(texts(store.history("member:reviewer", "ctx_shared")).find("lead") == std::string::npos);
  CHECK(store.conversations() == 2);
}

TEST_CASE("past max_exchanges the oldest exchange is dropped", "[conversation]") {
  ConversationStore store(ConversationCaps{3, 1 << 20, 8});
  for (int i = 0; i < 3; ++i) CHECK_FALSE(store.record("operator", "ctx_a", exchange("q" + std::to_string(i), "a")).any());
  const ConversationTrim trim = store.record("operator", "ctx_a", exchange("q3", "a"));
  CHECK(trim.exchanges_dropped == 1);
  CHECK_FALSE(trim.condensed);
  CHECK(store.exchanges("operator", "ctx_a") == 3);
  const Transcript h = store.history("operator", "ctx_a");
  CHECK(h.front().content == "q1"); // q0 went; the rest keep their order
  CHECK(h[h.size() - 4].content == "q3");
}

TEST_CASE("past max_bytes the oldest exchanges are dropped until the conversation fits", "[conversation]") {
  const Transcript one = exchange(std::string(100, 'x'), "a");
  std::size_t size = 0;
  for (const auto& m : one) size += message_bytes(m);
  ConversationStore store(ConversationCaps{100, 2 * size + size / 2, 8}); // room for two, not three
  store.record("operator", "ctx_a", exchange(std::string(100, 'x'), "a"));
  store.record("operator", "ctx_a", exchange(std::string(100, 'y'), "a"));
  const ConversationTrim trim = store.record("operator", "ctx_a", exchange(std::string(100, 'z'), "a"));
  CHECK(trim.exchanges_dropped == 1);
  CHECK(store.exchanges("operator", "ctx_a") == 2);
  CHECK(store.bytes("operator", "ctx_a") == 2 * size);
  CHECK(store.history("operator", "ctx_a").front().content == std::string(100, 'y'));
}

TEST_CASE("an exchange bigger than max_bytes alone is kept as its request and its answer, cut", "[conversation]") {
  ConversationStore store(ConversationCaps{10, 400, 8});
  store.record("operator", "ctx_a", exchange("small", "fits"));
  const ConversationTrim trim = store.record("operator", "ctx_a", exchange(std::string(1000, 'r'), std::string(1000, 'a')));
  CHECK(trim.condensed);
  CHECK(trim.exchanges_dropped == 1); // the small one made room
  const Transcript h = store.history("operator", "ctx_a");
  REQUIRE(h.size() == 2);
  CHECK(h[0].role == TranscriptRole::user);
  CHECK(h[1].role == TranscriptRole::assistant);
  CHECK(h[1].tool_calls.empty());
  CHECK(h[0].content.size() <= 200);
  CHECK(h[0].content.find("[runtime: cut") != std::string::npos);
  CHECK(store.bytes("operator", "ctx_a") <= 400);
}

TEST_CASE("past max_conversations the one used least recently is dropped", "[conversation]") {
  ConversationStore store(ConversationCaps{10, 1 << 20, 2});
  store.record("operator", "ctx_1", exchange("one", "a"));
  store.record("operator", "ctx_2", exchange("two", "a"));
  CHECK_FALSE(store.history("operator", "ctx_1").empty()); // read: ctx_1 is now the more recent
  const ConversationTrim trim = store.record("operator", "ctx_3", exchange("three", "a"));
  CHECK(trim.conversations_dropped == 1);
  CHECK(store.conversations() == 2);
  CHECK(store.exchanges("operator", "ctx_2") == 0);
  CHECK(store.exchanges("operator", "ctx_1") == 1);
  CHECK(store.exchanges("operator", "ctx_3") == 1);
}

TEST_CASE("a call carries one stable context per caller context and callee", "[conversation]") {
  const std::string a = callee_context("ctx_0192f0c0a1b2c3d4e5f60718293a4b5c", "coder");
  CHECK(a == callee_context("ctx_0192f0c0a1b2c3d4e5f60718293a4b5c", "coder"));
  CHECK(a != callee_context("ctx_0192f0c0a1b2c3d4e5f60718293a4b5c", "reviewer"));
  CHECK(a != callee_context("ctx_0192f0c0a1b2c3d4e5f60718293a4b5d", "coder"));
  CHECK(callee_context("ab", "c") != callee_context("a", "bc")); // framed: no split gives the same id
  CHECK(a.size() == 4 + 32);
  CHECK(a.rfind("ctx_", 0) == 0);
  CHECK(a.find_first_not_of("0123456789abcdef", 4) == std::string::npos);
}
