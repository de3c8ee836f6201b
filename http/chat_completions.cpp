#include "http/chat_completions.hpp"

#include "messages/vocabulary/enum_words.hpp"
#include "messages/vocabulary/strict_json.hpp"

#include <algorithm>

namespace mur {
namespace {

using nlohmann::json;

json message_json(const TranscriptMessage& m) {
  switch (m.role) {
  case TranscriptRole::system: return {{"role", "system"}, {"content", m.content}};
  case TranscriptRole::user: return {{"role", "user"}, {"content", m.content}};
  case TranscriptRole::tool: return {{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", m.content}};
  case TranscriptRole::assistant: break;
  }
  json a = {{"role", "assistant"}};
  // An assistant turn that only called tools has no text: content null, as the format allows.
  a["content"] = (m.content.empty() && !m.tool_calls.empty()) ? json(nullptr) : json(m.content);
  if (!m.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& c : m.tool_calls)
      calls.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
    a["tool_calls"] = std::move(calls);
  }
  return a;
}

ChatUsage usage_of(const json& u) {
  ChatUsage out;
  if (!u.is_object()) return out;
  auto num = [&](const char* k) -> std::int64_t {
    return u.contains(k) && u[k].is_number_integer() ? u[k].get<std::int64_t>() : 0;
  };
  out.reported = true;
  out.prompt_tokens = num("prompt_tokens");
  out.completion_tokens = num("completion_tokens");
  out.total_tokens = u.contains("total_tokens") && u["total_tokens"].is_number_integer()
                       ? u["total_tokens"].get<std::int64_t>()
                       : out.prompt_tokens + out.completion_tokens;
  // OpenAI's breakdown of completion_tokens; servers that have none leave it out.
  if (auto d = u.find("completion_tokens_details"); d != u.end() && d->is_object())
    if (auto r = d->find("reasoning_tokens"); r != d->end() && r->is_number_integer() && r->get<std::int64_t>() >= 0)
      out.reasoning_tokens = r->get<std::int64_t>();
  return out;
}

std::string string_at(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

// `content` as text: a string, null, or (some servers) a list of {type: text, text} parts.
std::string content_text(const json& c) {
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (c.is_array())
    for (const auto& p : c)
      if (p.is_object() && p.contains("text") && p["text"].is_string()) out += p["text"].get<std::string>();
  return out;
}

// The reasoning text of a message or delta: llama.cpp and DeepSeek say reasoning_content,
// some servers say reasoning.
std::string reasoning_text(const json& o) {
  std::string r = string_at(o, "reasoning_content");
  return r.empty() ? string_at(o, "reasoning") : r;
}

// `arguments` as text: a string as sent; an object (some servers) as its JSON.
std::string arguments_text(const json& f) {
  if (!f.is_object() || !f.contains("arguments")) return {};
  const auto& a = f["arguments"];
  if (a.is_string()) return a.get<std::string>();
  if (a.is_null()) return {};
  return a.dump();
}

std::string synthesized_id(std::int64_t index) { return "call_" + std::to_string(index); }

} // namespace

json chat_request_json(const ChatRequest& r) {
  json body = json::object();
  const auto& ours = chat_fields_set_by_mur();
  for (const auto& [name, text] : r.params) {
    if (std::find(ours.begin(), ours.end(), name) != ours.end()) continue;
    json v = json::parse(text, nullptr, false);
    if (!v.is_discarded()) body[name] = std::move(v);
  }
  body["model"] = r.model;
  json messages = json::array();
  for (const auto& m : r.transcript) messages.push_back(message_json(m));
  body["messages"] = std::move(messages);
  if (!r.tools.empty()) {
    json tools = json::array();
    for (const auto& t : r.tools)
      tools.push_back({{"type", "function"},
                       {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
    body["tools"] = std::move(tools);
    body["tool_choice"] = "auto";
  }
  body["stream"] = r.stream;
  if (r.stream) body["stream_options"] = {{"include_usage", true}};
  else body.erase("stream_options");
  if (r.max_tokens) body["max_tokens"] = *r.max_tokens;
  if (r.temperature) body["temperature"] = *r.temperature;
  return body;
}

// Texts the runtime did not write (a member's answer) may hold invalid UTF-8: replaced, never thrown.
std::string chat_request_body(const ChatRequest& r) {
  return chat_request_json(r).dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

constexpr EnumWords<FinishReason, 6> finish_words{{
  {FinishReason::none, "none"}, {FinishReason::stop, "stop"}, {FinishReason::tool_calls, "tool_calls"},
  {FinishReason::length, "length"}, {FinishReason::content_filter, "content_filter"},
  {FinishReason::other, "other"}}};

} // namespace

std::string to_string(FinishReason f) { return word_of(finish_words, f); }

FinishReason finish_reason_of(const std::string& w) {
  if (w.empty()) return FinishReason::none;
  if (w == "function_call") return FinishReason::tool_calls; // the older name of tool_calls
  const auto named = value_of(finish_words, w);
  return named && *named != FinishReason::none ? *named : FinishReason::other;
}

std::variant<ChatResult, ModelFailure> parse_chat_response(const std::string& body, const SecretRedaction& secrets) {
  // A server's bytes are untrusted: parsed with the depth bound (strict_json), never recursively deeper.
  auto parsed = parse_bounded_json(body);
  if (!parsed) return malformed_response("the body is not JSON (or nests deeper than " + std::to_string(max_json_depth) + " levels)");
  json j = std::move(*parsed);
  if (!j.is_object()) return malformed_response("the body is not a JSON object");
  if (j.contains("error") && !j["error"].is_null()) {
    const auto& e = j["error"];
    const std::string words = e.is_object() ? string_at(e, "message") : (e.is_string() ? e.get<std::string>() : "");
    return ModelFailure{"E-MOD-032", "the model server reported an error: " + quote_server_text(words, secrets),
                        "check the model server's own log", false, {}};
  }
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
    return malformed_response("it has no choices");
  const json& choice = j["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
    return malformed_response("choices[0] has no message");
  const json& msg = choice["message"];
  ChatResult r;
  r.id = string_at(j, "id");
  r.model = string_at(j, "model");
  if (msg.contains("content")) r.text = content_text(msg["content"]);
  if (!r.text.empty()) r.text_fragments = 1;
  const std::string reasoning = reasoning_text(msg);
  if (!reasoning.empty()) {
    r.reasoning_fragments = 1;
    r.reasoning_bytes = reasoning.size();
  }
  if (msg.contains("tool_calls") && !msg["tool_calls"].is_null()) {
    if (!msg["tool_calls"].is_array()) return malformed_response("message.tool_calls is not a list");
    std::int64_t i = 0;
    for (const auto& tc : msg["tool_calls"]) {
      const json fn = tc.is_object() && tc.contains("function") ? tc["function"] : json();
      ToolCall c{string_at(tc, "id"), string_at(fn, "name"), arguments_text(fn)};
      if (c.name.empty()) return malformed_response("tool_calls[" + std::to_string(i) + "] has no function name");
      if (c.id.empty()) c.id = synthesized_id(i);
      r.tool_calls.push_back(std::move(c));
      ++i;
    }
  }
  r.finish_wire = string_at(choice, "finish_reason");
  r.finish = finish_reason_of(r.finish_wire);
  if (j.contains("usage")) r.usage = usage_of(j["usage"]);
  return r;
}

std::optional<ModelFailure> finish_failure(const ChatResult& r) {
  if (r.finish != FinishReason::content_filter) return std::nullopt;
  return ModelFailure{"E-MOD-040", "the model server's content filter stopped the answer (finish_reason content_filter)",
                      "rephrase the task, or use a model or server without that filter", false, {}};
}

std::optional<ModelFailure> ChatStream::fail(ModelFailure f) {
  failure_ = std::move(f);
  return failure_;
}

std::optional<ModelFailure> ChatStream::feed(const std::string& data) {
  if (failure_) return failure_;
  if (done_) return std::nullopt; // nothing after [DONE] counts
  if (data == "[DONE]") {
    done_ = true;
    return std::nullopt;
  }
  auto parsed = parse_bounded_json(data);
  json j = parsed ? std::move(*parsed) : json();
  if (!parsed || !j.is_object()) {
    std::string quoted = quote_server_text(data, secrets_); // redacted before it is cut to 80 bytes
    if (quoted.size() > 80) quoted = quoted.substr(0, 80);
    return fail(malformed_stream("an event is not a JSON object: \"" + quoted + "\""));
  }
  if (j.contains("error") && !j["error"].is_null()) {
    const auto& e = j["error"];
    const std::string words = e.is_object() ? string_at(e, "message") : (e.is_string() ? e.get<std::string>() : "");
    return fail(ModelFailure{"E-MOD-032", "the model server reported an error in its stream: " + quote_server_text(words, secrets_),
                             "check the model server's own log", false, {}});
  }
  saw_chunk_ = true;
  if (result_.id.empty()) result_.id = string_at(j, "id");
  if (result_.model.empty()) result_.model = string_at(j, "model");
  if (j.contains("usage") && j["usage"].is_object()) result_.usage = usage_of(j["usage"]);
  if (!j.contains("choices")) {
    if (j.contains("usage")) return std::nullopt;
    return fail(malformed_stream("a chunk has neither choices nor usage"));
  }
  if (!j["choices"].is_array()) return fail(malformed_stream("a chunk's choices is not a list"));
  for (const auto& choice : j["choices"]) {
    if (!choice.is_object()) return fail(malformed_stream("a choice is not an object"));
    if (choice.contains("index") && choice["index"].is_number_integer() && choice["index"].get<std::int64_t>() != 0)
      continue; // mur asks for one choice; any other is not its answer
    const json delta = choice.contains("delta") ? choice["delta"] : json::object();
    if (!delta.is_object() && !delta.is_null()) return fail(malformed_stream("a delta is not an object"));
    if (delta.is_object()) {
      if (delta.contains("content")) {
        const std::string piece = content_text(delta["content"]);
        if (!piece.empty()) {
          if (piece.size() > caps_.text - std::min(caps_.text, result_.text.size()))
            return fail(stream_cap_failure(StreamCap::text, caps_.text));
          result_.text += piece;
          ++result_.text_fragments;
          if (on_text_) on_text_(piece);
        }
      }
      const std::string reasoning = reasoning_text(delta);
      if (!reasoning.empty()) {
        ++result_.reasoning_fragments;
        result_.reasoning_bytes += reasoning.size();
        if (result_.reasoning_bytes > caps_.reasoning) return fail(stream_cap_failure(StreamCap::reasoning, caps_.reasoning));
      }
      if (delta.contains("tool_calls") && !delta["tool_calls"].is_null()) {
        if (!delta["tool_calls"].is_array()) return fail(malformed_stream("delta.tool_calls is not a list"));
        for (const auto& tc : delta["tool_calls"]) {
          if (!tc.is_object()) return fail(malformed_stream("a tool-call delta is not an object"));
          const std::int64_t index = tc.contains("index") && tc["index"].is_number_integer()
                                       ? tc["index"].get<std::int64_t>()
                                       : next_unindexed_++;
          CallParts& parts = calls_[index];
          const std::string id = string_at(tc, "id");
          if (parts.id.empty() && !id.empty()) parts.id = id;
          const json fn = tc.contains("function") ? tc["function"] : json();
          const std::string name = string_at(fn, "name");
          if (!parts.named && !name.empty()) {
            parts.name = name;
            parts.named = true;
          }
          const std::string piece = arguments_text(fn);
          argument_bytes_ += piece.size();
          if (argument_bytes_ > caps_.tool_arguments)
            return fail(stream_cap_failure(StreamCap::tool_arguments, caps_.tool_arguments));
          parts.arguments += piece;
        }
      }
    }
    const std::string fw = string_at(choice, "finish_reason");
    if (!fw.empty()) {
      result_.finish_wire = fw;
      result_.finish = finish_reason_of(fw);
    }
  }
  return std::nullopt;
}

ChatResult ChatStream::partial() const {
  ChatResult r = result_;
  for (const auto& [index, parts] : calls_)
    r.tool_calls.push_back({parts.id.empty() ? synthesized_id(index) : parts.id, parts.name, parts.arguments});
  return r;
}

std::variant<ChatResult, ModelFailure> ChatStream::finish() const {
  if (failure_) return *failure_;
  if (!saw_chunk_) return malformed_stream("the stream ended without a single chunk");
  if (!done_ && result_.finish == FinishReason::none)
    return malformed_stream("the stream ended before a finish_reason or data: [DONE]");
  for (const auto& [index, parts] : calls_)
    if (!parts.named) return malformed_stream("the tool call at index " + std::to_string(index) + " never got a name");
  return partial();
}

} // namespace mur
