// chat_completions.hpp — the OpenAI-compatible Chat Completions wire format, as pure functions:
// the request body mur sends, a non-streamed response, and a streamed one fed one SSE `data:`
// payload at a time (CurlPool's on_event, cut by SseEvents). No I/O, no clock, no state beyond
// one response.
//
// Invariant: the request never lets `params` override a field mur sets (model, messages, tools,
// tool_choice, stream, stream_options); every tool call in a result has an id, a name and its
// arguments text exactly as concatenated from the wire; text fragments reach the sink in order
// and their concatenation is the result's text; `reasoning_content` is counted, never part of
// the answer. A result that carries tool calls is a tool turn whatever finish_reason says
// (Ollama ends such a stream with "stop"): trust the calls received. A stream is read under its
// StreamCaps (http/stream_caps.hpp): the first cap passed fails it (E-MOD-033/034/035), and a
// fragment that would pass the text cap never reaches the sink. Server text quoted in a failure
// goes through the SecretRedaction given before it is cut.
// Rule: OpenAI-compatible Chat Completions, streamed or not; every streamed part is capped
// (docs/models.md "Limits") and no server text leaves without the redaction rule.
#pragma once

#include "http/model_failure.hpp"
#include "http/stream_caps.hpp"
#include "messages/vocabulary/chat_fields.hpp"
#include "messages/vocabulary/secret_redaction.hpp"
#include "messages/vocabulary/transcript.hpp"
#include "messages/wire/runtime_tools.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace mur {

struct ChatRequest {
  std::string model;
  Transcript transcript;
  std::vector<FunctionTool> tools;
  bool stream = true;
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  std::vector<std::pair<std::string, std::string>> params; // name → JSON text (Inference::params)
};

// The JSON body of POST {endpoint}/chat/completions.
nlohmann::json chat_request_json(const ChatRequest& r);
std::string chat_request_body(const ChatRequest& r);

enum class FinishReason { none, stop, tool_calls, length, content_filter, other };
std::string to_string(FinishReason f);
FinishReason finish_reason_of(const std::string& wire);

struct ChatUsage {
  bool reported = false;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t total_tokens = 0;
  std::int64_t reasoning_tokens = -1; // completion_tokens_details.reasoning_tokens (part of completion_tokens); -1: not sent
};

struct ChatResult {
  std::string id;                  // the completion's id, when sent
  std::string model;               // the model that answered, when sent
  std::string text;                // the answer's text (never reasoning)
  std::vector<ToolCall> tool_calls;// in index order
  FinishReason finish = FinishReason::none;
  std::string finish_wire;         // finish_reason as sent ("" when none)
  ChatUsage usage;
  std::size_t reasoning_fragments = 0; // reasoning_content deltas (or 1 for a whole message)
  std::size_t reasoning_bytes = 0;
  std::size_t text_fragments = 0;      // content deltas with text (1 for a non-streamed answer)

  bool calls_tools() const { return !tool_calls.empty(); }
};

// A non-streamed 2xx body; `secrets` are redacted from any server text a failure quotes.
std::variant<ChatResult, ModelFailure> parse_chat_response(const std::string& body,
                                                           const SecretRedaction& secrets = SecretRedaction());

// What a result means for the task beyond its text and calls: content_filter fails it
// (E-MOD-040); everything else (stop, tool_calls, length, none) does not.
std::optional<ModelFailure> finish_failure(const ChatResult& r);

// Accumulates one streamed response.
class ChatStream {
public:
  using TextSink = std::function<void(const std::string& fragment)>;
  explicit ChatStream(TextSink on_text = {}, SecretRedaction secrets = {}, StreamCaps caps = {})
    : on_text_(std::move(on_text)), secrets_(std::move(secrets)), caps_(caps) {}

  // Feeds one event's data payload. A payload that is not a chunk, or an error object from the
  // server, fails the stream (returned, and every later feed returns it again).
  std::optional<ModelFailure> feed(const std::string& data);

  bool saw_done() const { return done_; }  // `data: [DONE]` arrived
  bool failed() const { return failure_.has_value(); }

  // The result once the body has ended. A stream that ended with neither [DONE] nor a
  // finish_reason is E-MOD-031 (cut short); one that ended after a finish_reason but without
  // [DONE] is accepted (some servers omit it).
  std::variant<ChatResult, ModelFailure> finish() const;

  // What has been accumulated so far (text, calls by index so far, usage).
  ChatResult partial() const;

private:
  struct CallParts {
    std::string id, name, arguments;
    bool named = false;
  };
  std::optional<ModelFailure> fail(ModelFailure f);

  TextSink on_text_;
  SecretRedaction secrets_;
  StreamCaps caps_;
  std::size_t argument_bytes_ = 0; // all calls' arguments so far
  ChatResult result_;
  std::map<std::int64_t, CallParts> calls_; // by index
  std::int64_t next_unindexed_ = 1'000'000; // calls sent without an index (whole, one per delta)
  bool done_ = false;
  bool saw_chunk_ = false;
  std::optional<ModelFailure> failure_;
};

} // namespace mur
