// The one redaction rule (messages/vocabulary/secret_redaction.hpp) and every path a server's or a
// program's text takes into a failure: a stream's error event, an HTTP error body (and a 200
// body that is an error), a transport failure's words, an agent program's stderr tail.
#include "http/chat_completions.hpp"
#include "http/model_failure.hpp"
#include "member/harness_model.hpp"
#include "messages/vocabulary/secret_redaction.hpp"
#include "messages/wire/model_turn.hpp"

#include <caf/all.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

using namespace mur;
using nlohmann::json;

namespace {

const std::string key = "sk-live-0123456789abcdefXYZ";

SecretRedaction with_key() { return SecretRedaction({key}); }

// The value of $GH_TOKEN the agent programs here are given: a secret, read from ${ENV}.
const std::string token_value = "ghp_secretTokenValue0123456789";

// One turn of task `task_id` by the agent program `sh -c script`, with `env` (GH_TOKEN among it)
// and token_value as its secret, run in a fresh directory /tmp/mur-<dir_name>-<pid>.
ModelTurn harness_turn(const std::string& dir_name, const std::string& script,
                       std::vector<std::pair<std::string, std::string>> env, const std::string& task_id) {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  const auto dir = std::filesystem::temp_directory_path() / (dir_name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  HarnessSetup hs;
  hs.program = "/bin/sh";
  hs.args = {"-c", script};
  hs.env = std::move(env);
  hs.secrets.add(token_value);
  hs.workdir = dir.string();
  auto port = spawn_harness_model(sys, std::move(hs));
  caf::scoped_actor self{sys};
  ModelTurnRequest req;
  req.task_id = task_id;
  req.task_text = "do it";
  ModelTurn got;
  self->request(port, caf::infinite, req).receive([&](const ModelTurn& t) { got = t; },
                                                  [&](const caf::error& e) { FAIL(sys.render(e)); });
  self->send_exit(port, caf::exit_reason::user_shutdown);
  std::filesystem::remove_all(dir);
  return got;
}

} // namespace

TEST_CASE("redaction: every secret, anywhere, longest first, short ones only as words", "[redaction]") {
  SecretRedaction r({key, "sk-live-0123", ""});
  CHECK(r.size() == 2); // the empty one is ignored
  CHECK(r.redact("k=" + key + "," + key) == "k=[redacted],[redacted]");
  CHECK(r.redact("prefix sk-live-0123 only") == "prefix [redacted] only"); // the shorter secret alone
  CHECK(r.redact("") == "");
  CHECK(SecretRedaction().redact("nothing " + key) == "nothing " + key);

  SecretRedaction short_one({"1", "en"});
  CHECK(short_one.redact("DEBUG=1") == "DEBUG=1"); // touching '=': part of a longer word
  CHECK(short_one.redact("status 1, lang en.") == "status [redacted], lang [redacted].");
  CHECK(short_one.redact("10 11 open ten") == "10 11 open ten");
  CHECK(short_one.redact("1") == "[redacted]");

  SecretRedaction eight({"abcdefgh"});
  CHECK(eight.redact("xxabcdefghxx") == "xx[redacted]xx"); // 8 bytes and more: inside words too
}

TEST_CASE("redaction: a stream's error event never quotes the key", "[redaction][models]") {
  ChatStream s({}, with_key());
  REQUIRE_FALSE(s.feed(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})"));
  auto f = s.feed(json{{"error", {{"message", "request rejected for key " + key + ": quota exhausted"}}}}.dump());
  REQUIRE(f);
  CHECK(f->code == "E-MOD-032");
  CHECK(f->message.find(key) == std::string::npos);
  CHECK(f->message.find("[redacted]") != std::string::npos);
  CHECK(f->message.find("quota exhausted") != std::string::npos);

  // Where the 300-byte cut falls inside the key, no part of it survives either.
  ChatStream cut({}, with_key());
  auto g = cut.feed(json{{"error", {{"message", std::string(290, 'a') + key + std::string(100, 'b')}}}}.dump());
  REQUIRE(g);
  CHECK(g->message.find("sk-live") == std::string::npos);

  // An event that is not JSON is quoted (its first 80 bytes), redacted first.
  ChatStream bad({}, with_key());
  auto h = bad.feed("oops " + key + " and more");
  REQUIRE(h);
  CHECK(h->code == "E-MOD-031");
  CHECK(h->message.find("sk-live") == std::string::npos);
}

TEST_CASE("redaction: HTTP error bodies and a 200 body that is an error", "[redaction][models]") {
  const auto now = std::chrono::system_clock::now();
  const std::string url = "http://127.0.0.1:9/v1/chat/completions";
  for (long status : {400L, 404L, 429L, 500L, 503L, 418L}) {
    auto f = classify_http_failure(status, json{{"error", {{"message", std::string(285, 'p') + " key " + key}}}}.dump(),
                                   "", now, "m", url, true, with_key());
    INFO(status);
    CHECK(f.message.find("sk-live") == std::string::npos);
  }
  auto plain = parse_chat_response(json{{"error", {{"message", std::string(295, 'q') + key}}}}.dump(), with_key());
  REQUIRE(std::holds_alternative<ModelFailure>(plain));
  CHECK(std::get<ModelFailure>(plain).code == "E-MOD-032");
  CHECK(std::get<ModelFailure>(plain).message.find("sk-live") == std::string::npos);
}

TEST_CASE("redaction: a transport failure's words", "[redaction][models]") {
  const std::string url = "http://127.0.0.1:9/v1/chat/completions";
  auto f = classify_transport_failure("Failed writing header Bearer " + key, url, false, with_key());
  CHECK(f.message.find(key) == std::string::npos);
  CHECK(f.message.find("[redacted]") != std::string::npos);
  auto g = classify_transport_failure("Timeout was reached near " + key, url, true, with_key());
  CHECK(g.code == "E-MOD-002");
  CHECK(g.message.find(key) == std::string::npos);
}

TEST_CASE("redaction: an agent program's failure quoting an env value read from ${ENV}", "[redaction][harness]") {
  const ModelTurn got = harness_turn("mur-redaction", "echo \"login failed with token=$GH_TOKEN (lang $LANG_CODE)\" >&2; exit 3",
                                     {{"GH_TOKEN", token_value}, {"LANG_CODE", "en"}}, "tsk_redaction");
  CHECK(got.fails);
  CHECK(got.failure.rfind("E-HAR-002", 0) == 0);
  CHECK(got.failure.find(token_value) == std::string::npos);
  CHECK(got.failure.find("token=[redacted]") != std::string::npos);
  CHECK(got.failure.find("lang en") != std::string::npos); // a value not from ${…} is not a secret
}

TEST_CASE("redaction of a text that arrives in pieces: no split of a key passes, nothing else is held", "[redaction]") {
  const std::string key = "sk-live-0123456789abcdef";
  SecretRedaction r({key});
  CHECK(r.held_back("nothing here") == 0);
  CHECK(r.held_back("ends with sk-li") == 5);
  CHECK(r.held_back("ends with the whole " + key) == key.size()); // its word boundary comes next
  CHECK(r.held_back("s") == 1);
  // The text cut in two at every place, passed on as the stream passes it on.
  const std::string text = "before " + key + " after";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    std::string out, held;
    for (const std::string& piece : {text.substr(0, cut), text.substr(cut)}) {
      std::string t = held + piece;
      const std::size_t keep = r.held_back(t);
      held = t.substr(t.size() - keep);
      t.resize(t.size() - keep);
      out += r.redact(t);
    }
    out += r.redact(held);
    INFO("cut at " << cut);
    CHECK(out == "before [redacted] after");
  }
}

TEST_CASE("redaction: an agent program's answer that prints an env value read from ${ENV}", "[redaction][harness]") {
  const ModelTurn got = harness_turn("mur-redaction-out", "cat >/dev/null; echo \"done, with token=$GH_TOKEN\"",
                                     {{"GH_TOKEN", token_value}}, "tsk_redaction_out");
  INFO(got.failure);
  CHECK_FALSE(got.fails);
  CHECK(got.text.find(token_value) == std::string::npos);
  CHECK(got.text.find("done, with token=[redacted]") != std::string::npos);
}
