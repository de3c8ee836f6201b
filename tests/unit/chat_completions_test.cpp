// The Chat Completions codec (http/chat_completions.hpp, http/model_failure.hpp) against the
// replay server's fixture files (tests/models/fixtures): the same bytes and the same
// expectations (fixtures.json) that tests/models/fixtures_openai.test.mjs checks with the
// official openai client. Streamed fixtures go through SseEvents — CurlPool's event cutting —
// in several chunkings.
#include "http/chat_completions.hpp"
#include "http/model_failure.hpp"
#include "http/sse_events.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using nlohmann::json;

namespace {

const std::string fixtures = std::string(MUR_SOURCE_DIR) + "/tests/models/fixtures/";

std::string read(const std::string& file) {
  std::ifstream in(fixtures + file, std::ios::binary);
  REQUIRE(in);
  std::ostringstream b;
  b << in.rdbuf();
  return b.str();
}

const json& index_json() {
  static const json j = json::parse(read("fixtures.json"));
  return j;
}

// Feeds `bytes` through the SSE cutting in pieces of `step` bytes (0: all at once).
mur::ChatStream stream_of(const std::string& bytes, std::size_t step, std::vector<std::string>* fragments = nullptr,
                          bool whole = true) {
  mur::ChatStream s(fragments ? mur::ChatStream::TextSink([fragments](const std::string& f) { fragments->push_back(f); })
                              : mur::ChatStream::TextSink());
  mur::SseEvents cut;
  auto on_data = [&](const std::string& d) { s.feed(d); };
  if (step == 0) step = bytes.size();
  for (std::size_t at = 0; at < bytes.size(); at += step)
    cut.feed(bytes.data() + at, std::min(step, bytes.size() - at), on_data);
  if (whole) CHECK(cut.pending().empty()); // every event of a whole fixture ends with its blank line
  return s;
}

void check_result(const mur::ChatResult& r, const json& expect, const std::string& label) {
  INFO(label);
  CHECK(r.text == expect.at("text").get<std::string>());
  CHECK(r.finish_wire == expect.at("finish_reason").get<std::string>());
  CHECK(r.finish == mur::finish_reason_of(expect.at("finish_reason").get<std::string>()));
  const auto& calls = expect.at("tool_calls");
  REQUIRE(r.tool_calls.size() == calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CHECK(r.tool_calls[i].id == calls[i].at("id").get<std::string>());
    CHECK(r.tool_calls[i].name == calls[i].at("name").get<std::string>());
    CHECK(r.tool_calls[i].arguments == calls[i].at("arguments").get<std::string>());
    CHECK_FALSE(json::parse(r.tool_calls[i].arguments, nullptr, false).is_discarded());
  }
  CHECK(r.calls_tools() == !calls.empty());
  REQUIRE(r.usage.reported);
  CHECK(r.usage.prompt_tokens == expect.at("usage").at("prompt_tokens").get<std::int64_t>());
  CHECK(r.usage.completion_tokens == expect.at("usage").at("completion_tokens").get<std::int64_t>());
  CHECK(r.usage.total_tokens == expect.at("usage").at("total_tokens").get<std::int64_t>());
  if (expect.contains("text_fragments")) CHECK(r.text_fragments == expect["text_fragments"].get<std::size_t>());
  CHECK(r.reasoning_fragments == expect.value("reasoning_fragments", std::size_t{0}));
}

template <class T>
T must(const std::variant<T, mur::ModelFailure>& v) {
  if (auto* f = std::get_if<mur::ModelFailure>(&v)) FAIL(f->code << ": " << f->message);
  return std::get<T>(v);
}

mur::ModelFailure failure(const std::variant<mur::ChatResult, mur::ModelFailure>& v) {
  REQUIRE(std::holds_alternative<mur::ModelFailure>(v));
  return std::get<mur::ModelFailure>(v);
}

std::string chunk(const json& delta, const json& finish = nullptr) {
  return json{{"id", "c"}, {"object", "chat.completion.chunk"}, {"model", "m"},
              {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}}
    .dump();
}

} // namespace

TEST_CASE("every non-streamed fixture parses to what fixtures.json says", "[models][codec]") {
  int seen = 0;
  for (const auto& [model, entry] : index_json().at("models").items()) {
    if (!entry.contains("plain")) continue;
    ++seen;
    const auto r = must(mur::parse_chat_response(read(entry["plain"]["file"].get<std::string>())));
    check_result(r, entry["plain"]["expect"], model);
    CHECK(r.model == model);
  }
  CHECK(seen == 2);
}

TEST_CASE("every streamed fixture accumulates to what fixtures.json says, however it is chunked", "[models][codec]") {
  int seen = 0;
  for (const auto& [model, entry] : index_json().at("models").items()) {
    if (!entry.contains("stream")) continue;
    ++seen;
    const std::string bytes = read(entry["stream"]["file"].get<std::string>());
    for (std::size_t step : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
      std::vector<std::string> fragments;
      auto s = stream_of(bytes, step, &fragments);
      CHECK(s.saw_done());
      const auto r = must(s.finish());
      check_result(r, entry["stream"]["expect"], model + " in steps of " + std::to_string(step));
      std::string joined;
      for (const auto& f : fragments) joined += f;
      CHECK(joined == r.text); // the sink saw every fragment, in order
      CHECK(fragments.size() == r.text_fragments);
    }
  }
  CHECK(seen == 4);
}

TEST_CASE("dialect quirks: Ollama's whole calls with stop, llama.cpp's reasoning kept out of the answer", "[models][codec]") {
  auto ollama = stream_of(read("ollama-tools.sse"), 0);
  const auto o = must(ollama.finish());
  CHECK(o.finish == mur::FinishReason::stop);
  CHECK(o.calls_tools()); // trust the calls received
  CHECK(o.tool_calls.at(1).name == "end-without-answer");

  auto llama = stream_of(read("llamacpp-tools.sse"), 3);
  const auto l = must(llama.finish());
  CHECK(l.reasoning_fragments == 3);
  CHECK(l.reasoning_bytes == std::string("The user wantsa haiku; the coder writes those.").size());
  CHECK(l.text.find("user wants") == std::string::npos);
}

TEST_CASE("a stream cut short is E-MOD-031, a stream with a finish but no DONE is accepted", "[models][codec]") {
  const std::string bytes = read("openai-stream.sse");
  // dies-mid-stream serves the first 1200 bytes (fixtures.json).
  auto cut = stream_of(bytes.substr(0, 1200), 0, nullptr, false);
  CHECK_FALSE(cut.saw_done());
  CHECK(failure(cut.finish()).code == "E-MOD-031");
  CHECK(cut.partial().text == "Asking both members."); // what arrived is still there

  const auto no_done = bytes.substr(0, bytes.find("data: [DONE]"));
  auto s = stream_of(no_done, 0);
  CHECK_FALSE(s.saw_done());
  CHECK(must(s.finish()).tool_calls.size() == 2);

  mur::ChatStream empty;
  CHECK(failure(empty.finish()).code == "E-MOD-031");
}

TEST_CASE("malformed events and error objects fail the stream", "[models][codec]") {
  mur::ChatStream s;
  CHECK_FALSE(s.feed(chunk({{"content", "hi"}})));
  auto f = s.feed("{not json");
  REQUIRE(f);
  CHECK(f->code == "E-MOD-031");
  CHECK(s.feed(chunk({{"content", "more"}}))->code == "E-MOD-031"); // stays failed
  CHECK(failure(s.finish()).code == "E-MOD-031");

  mur::ChatStream e;
  auto err = e.feed(R"({"error":{"message":"CUDA out of memory","type":"server_error"}})");
  REQUIRE(err);
  CHECK(err->code == "E-MOD-032");
  CHECK(err->message.find("CUDA out of memory") != std::string::npos);

  mur::ChatStream bad;
  CHECK(bad.feed(R"({"choices":"nope"})")->code == "E-MOD-031");
  mur::ChatStream bad_calls;
  CHECK(bad_calls.feed(chunk({{"tool_calls", "x"}}))->code == "E-MOD-031");

  mur::ChatStream nameless;
  CHECK_FALSE(nameless.feed(chunk({{"tool_calls", {{{"index", 0}, {"function", {{"arguments", "{}"}}}}}}}, "tool_calls")));
  CHECK(failure(nameless.finish()).message.find("never got a name") != std::string::npos);
}

TEST_CASE("tool-call deltas without an index or an id still make whole calls", "[models][codec]") {
  mur::ChatStream s;
  s.feed(chunk({{"tool_calls", {{{"function", {{"name", "call-member"}, {"arguments", R"({"member":"a","task":"x"})"}}}}}}}));
  s.feed(chunk({{"tool_calls", {{{"function", {{"name", "call-member"}, {"arguments", {{"member", "b"}, {"task", "y"}}}}}}}}}));
  s.feed(chunk(json::object(), "tool_calls"));
  s.feed("[DONE]");
  const auto r = must(s.finish());
  REQUIRE(r.tool_calls.size() == 2);
  CHECK(r.tool_calls[0].arguments == R"({"member":"a","task":"x"})");
  CHECK(json::parse(r.tool_calls[1].arguments) == json{{"member", "b"}, {"task", "y"}}); // an object is kept as JSON
  CHECK(r.tool_calls[0].id != r.tool_calls[1].id);
  CHECK_FALSE(r.tool_calls[0].id.empty());
}

TEST_CASE("content_filter fails the task, length keeps the text", "[models][codec]") {
  mur::ChatStream s;
  s.feed(chunk({{"content", "partial"}}, "length"));
  const auto r = must(s.finish());
  CHECK(r.finish == mur::FinishReason::length);
  CHECK(r.text == "partial");
  CHECK_FALSE(mur::finish_failure(r));

  mur::ChatStream c;
  c.feed(chunk(json::object(), "content_filter"));
  auto f = mur::finish_failure(must(c.finish()));
  REQUIRE(f);
  CHECK(f->code == "E-MOD-040");
  CHECK_FALSE(f->fix.empty());
}

TEST_CASE("non-streamed responses that are not chat completions", "[models][codec]") {
  CHECK(failure(mur::parse_chat_response("<html>502</html>")).code == "E-MOD-030");
  CHECK(failure(mur::parse_chat_response("[]")).code == "E-MOD-030");
  CHECK(failure(mur::parse_chat_response(R"({"choices":[]})")).code == "E-MOD-030");
  CHECK(failure(mur::parse_chat_response(R"({"choices":[{"message":{"tool_calls":[{"id":"a","function":{}}]}}]})")).code ==
        "E-MOD-030");
  CHECK(failure(mur::parse_chat_response(R"({"error":{"message":"boom"}})")).code == "E-MOD-032");
}

TEST_CASE("the request body: transcript, function tools, tool_choice auto, streaming usage, params", "[models][codec]") {
  mur::ChatRequest r;
  r.model = "llama3.2";
  r.transcript = {mur::TranscriptMessage::system("You are coder."), mur::TranscriptMessage::user("Write a haiku."),
                  mur::TranscriptMessage::assistant("", {{"call_1", "call-member", R"({"member":"critic","task":"t"})"}}),
                  mur::TranscriptMessage::tool_result("call_1", "held"),
                  mur::TranscriptMessage::assistant("Done.")};
  r.tools = {{"call-member", "Hands a task to another member.",
              json{{"type", "object"}, {"properties", {{"member", {{"type", "string"}, {"enum", {"critic"}}}}}}}}};
  r.max_tokens = 256;
  r.temperature = 0.5;
  r.params = {{"top_p", "0.9"}, {"seed", "7"}, {"model", "\"evil\""}, {"stream", "false"}};
  json b = json::parse(mur::chat_request_body(r));
  CHECK(b["model"] == "llama3.2");
  CHECK(b["stream"] == true);
  CHECK(b["stream_options"] == json{{"include_usage", true}});
  CHECK(b["tool_choice"] == "auto");
  CHECK(b["tools"][0] == json{{"type", "function"},
                              {"function", {{"name", "call-member"}, {"description", "Hands a task to another member."},
                                            {"parameters", r.tools[0].parameters}}}});
  CHECK(b["max_tokens"] == 256);
  CHECK(b["temperature"] == 0.5);
  CHECK(b["top_p"] == 0.9);
  CHECK(b["seed"] == 7);
  REQUIRE(b["messages"].size() == 5);
  CHECK(b["messages"][0] == json{{"role", "system"}, {"content", "You are coder."}});
  CHECK(b["messages"][1] == json{{"role", "user"}, {"content", "Write a haiku."}});
  CHECK(b["messages"][2]["content"].is_null());
  CHECK(b["messages"][2]["tool_calls"][0] ==
        json{{"id", "call_1"}, {"type", "function"},
             {"function", {{"name", "call-member"}, {"arguments", R"({"member":"critic","task":"t"})"}}}});
  CHECK(b["messages"][3] == json{{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "held"}});
  CHECK(b["messages"][4] == json{{"role", "assistant"}, {"content", "Done."}});

  r.stream = false;
  r.tools.clear();
  r.max_tokens.reset();
  r.temperature.reset();
  r.params = {{"stream_options", R"({"include_usage":true})"}};
  json p = json::parse(mur::chat_request_body(r));
  CHECK(p["stream"] == false);
  CHECK_FALSE(p.contains("stream_options"));
  CHECK_FALSE(p.contains("tools"));
  CHECK_FALSE(p.contains("tool_choice"));
  CHECK_FALSE(p.contains("max_tokens"));
  CHECK_FALSE(p.contains("temperature"));
}

TEST_CASE("HTTP failures are classified with E-MOD codes and never show the key", "[models][failure]") {
  const auto now = std::chrono::system_clock::now();
  const std::string url = "http://127.0.0.1:9/v1/chat/completions";
  const std::string key = "sk-test-0123456789abcdef";
  const mur::SecretRedaction secrets({key});

  for (long status : {401L, 403L}) {
    auto f = mur::classify_http_failure(status, R"({"error":{"message":"Incorrect API key provided: sk-test-0123***cdef"}})",
                                        "", now, "m", url, true, secrets);
    CHECK(f.code == "E-MOD-010");
    CHECK(f.message.find("refused the API key") != std::string::npos);
    CHECK(f.message.find("sk-") == std::string::npos); // not even the server's masked echo
    CHECK(f.fix.find(key) == std::string::npos);
    CHECK_FALSE(f.retryable);
  }
  auto nf = mur::classify_http_failure(404, R"({"error":{"message":"model 'qwen' not found"}})", "", now, "qwen", url, true, secrets);
  CHECK(nf.code == "E-MOD-011");
  CHECK(nf.message.find("model 'qwen' not found") != std::string::npos);
  CHECK(nf.fix.find("/models") != std::string::npos);

  auto vllm = mur::classify_http_failure(400, read("vllm-auto-tool-choice.json"), "", now, "m", url, true, secrets);
  CHECK(vllm.code == "E-MOD-012");
  CHECK(vllm.fix.find("--enable-auto-tool-choice --tool-call-parser") != std::string::npos);
  CHECK_FALSE(vllm.retryable);

  auto other = mur::classify_http_failure(
    400, R"({"error":{"message":"'tool_choice' auto is only allowed when 'tools' are specified"}})", "", now, "m", url, true, secrets);
  CHECK(other.code == "E-MOD-013");

  auto bad = mur::classify_http_failure(400, R"({"error":{"message":"unknown field top_k, key sk-test-0123456789abcdef"}})",
                                        "", now, "m", url, true, secrets);
  CHECK(bad.code == "E-MOD-013");
  CHECK(bad.message.find("unknown field top_k") != std::string::npos);
  CHECK(bad.message.find(key) == std::string::npos);
  CHECK(bad.message.find("[redacted]") != std::string::npos);

  auto limited = mur::classify_http_failure(429, read("error-429.json"), "1", now, "m", url, true, secrets);
  CHECK(limited.code == "E-MOD-020");
  CHECK(limited.retryable);
  CHECK(limited.retry_after == std::optional<std::chrono::milliseconds>(std::chrono::milliseconds(1000)));

  auto broken = mur::classify_http_failure(503, read("error-500.json"), "", now, "m", url, true, secrets);
  CHECK(broken.code == "E-MOD-021");
  CHECK(broken.retryable);
  CHECK_FALSE(broken.retry_after);
  CHECK(mur::classify_http_failure(500, "", "", now, "m", url, true, secrets).code == "E-MOD-021");

  auto long_text = mur::classify_http_failure(418, std::string(5000, 'x'), "", now, "m", url, true, secrets);
  CHECK(long_text.message.size() < 600);
}

TEST_CASE("Retry-After: seconds, an HTTP date, nonsense", "[models][failure]") {
  using std::chrono::milliseconds;
  // 2026-12-01T08:00:00Z
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1796112000));
  CHECK(mur::parse_retry_after("0", now) == std::optional<milliseconds>(0));
  CHECK(mur::parse_retry_after(" 120 ", now) == std::optional<milliseconds>(120000));
  CHECK(mur::parse_retry_after("Tue, 01 Dec 2026 08:00:30 GMT", now) == std::optional<milliseconds>(30000));
  CHECK(mur::parse_retry_after("Mon, 30 Nov 2026 08:00:00 GMT", now) == std::optional<milliseconds>(0));
  CHECK_FALSE(mur::parse_retry_after("", now));
  CHECK_FALSE(mur::parse_retry_after("soon", now));
  CHECK_FALSE(mur::parse_retry_after("-5", now));
  CHECK_FALSE(mur::parse_retry_after("1.5", now));
  CHECK_FALSE(mur::parse_retry_after("Tue, 01 Dec 2026 08:00:30 PST", now));
  CHECK_FALSE(mur::parse_retry_after("Tue, 01 Foo 2026 08:00:30 GMT", now));
}

TEST_CASE("transport failures: unreachable, timeout, cut mid-stream", "[models][failure]") {
  const std::string url = "http://127.0.0.1:9/v1/chat/completions";
  CHECK(mur::classify_transport_failure("Couldn't connect to server", url, false).code == "E-MOD-001");
  CHECK(mur::classify_transport_failure("Couldn't resolve host name", url, false).message.find("resolved") !=
        std::string::npos);
  CHECK(mur::classify_transport_failure("SSL connect error", url, false).message.find("TLS") != std::string::npos);
  CHECK(mur::classify_transport_failure("Timeout was reached", url, true).code == "E-MOD-002");
  CHECK(mur::classify_transport_failure("Transferred a partial file", url, true).code == "E-MOD-031");
  CHECK(mur::classify_transport_failure("Server returned nothing (no headers, no status line)", url, false).code ==
        "E-MOD-001");
}

TEST_CASE("SSE cutting: CRLF, comments, multi-line data, an unfinished event held back", "[models][sse]") {
  mur::SseEvents cut;
  std::vector<std::string> got;
  auto on = [&](const std::string& d) { got.push_back(d); };
  const std::string text = ": keep-alive\r\n\r\nevent: x\r\ndata: a\r\ndata:b\r\n\r\nid: 3\n\ndata: tail";
  cut.feed(text.data(), text.size(), on);
  CHECK(got == std::vector<std::string>{"a\nb"});
  CHECK(cut.pending() == "data: tail");
  cut.feed("\n\n", 2, on);
  CHECK(got == std::vector<std::string>{"a\nb", "tail"});
}

TEST_CASE("a transcript survives CAF serialization and prints its roles", "[models][transcript]") {
  mur::Transcript t{mur::TranscriptMessage::system("s"), mur::TranscriptMessage::user("u"),
                    mur::TranscriptMessage::assistant("", {{"call_1", "call-member", "{}"}}),
                    mur::TranscriptMessage::tool_result("call_1", "held")};
  std::vector<char> buf;
  caf::binary_serializer out(nullptr, buf);
  CHECK_FALSE(out(t));
  mur::Transcript back;
  caf::binary_deserializer in(nullptr, buf);
  CHECK_FALSE(in(back));
  CHECK(back == t);
  CHECK(caf::deep_to_string(t[3]).find("tool") != std::string::npos);
}
