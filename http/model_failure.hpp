// model_failure.hpp — what went wrong talking to a Chat Completions server, as the `E-MOD-…`
// family: a code, a message, a Fix line, and whether trying again may help and when.
//
// Invariant: a ModelFailure never holds an API key: 401/403 never quote the server's text (some
// servers echo part of the key), and every other quoted server text goes through the one
// redaction rule (messages/vocabulary/secret_redaction.hpp) BEFORE it is cut to 300 bytes, so no cut leaves
// part of a key. Only 429 and 5xx (and transport hiccups
// before any byte arrived) are retryable; `retry_after` is the server's Retry-After, when it
// sent a usable one.
// Spec: docs/spec/model-and-tool-wire.md §Errors; docs/models.md ("Failures"); docs/errors.md (E-MOD).
//
// Codes:
//   E-MOD-001 the server could not be reached (connection refused, DNS, TLS)
//   E-MOD-002 the request timed out (no answer, or the stream stalled)
//   E-MOD-010 the key was refused (401/403)
//   E-MOD-011 the model or the path was not found (404)
//   E-MOD-012 vLLM without a tool-call parser refused tool_choice "auto" (400)
//   E-MOD-013 the server refused the request (another 4xx)
//   E-MOD-020 rate limited (429), retryable
//   E-MOD-021 the server failed (5xx), retryable
//   E-MOD-030 the response is not the JSON of a chat completion
//   E-MOD-031 the event stream is malformed or ended early
//   E-MOD-032 the server reported an error inside the stream
//   E-MOD-033 a streamed answer's text passed its cap (http/stream_caps.hpp)
//   E-MOD-034 a streamed answer's reasoning passed its cap
//   E-MOD-035 a streamed answer's tool-call arguments passed their cap
//   E-MOD-036 one event of the stream passed its cap
//   E-MOD-040 the server's content filter stopped the answer (finish_reason content_filter)
#pragma once

#include "http/stream_caps.hpp"
#include "messages/vocabulary/secret_redaction.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace mur {

struct ModelFailure {
  std::string code;
  std::string message;
  std::string fix;
  bool retryable = false;
  std::optional<std::chrono::milliseconds> retry_after;
};

// Retry-After as delay-seconds ("120") or an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT");
// a date in the past is a zero delay. Anything else: nullopt.
std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value,
                                                           std::chrono::system_clock::time_point now);

// A reply whose status is not 2xx. `model` and `url` (no key in it, by ModelEndpoint's rules)
// name what was asked for; `has_key` says whether a key was sent; `key_env` is the variable
// inference.api_key names ("" when none: a 401 without a key then asks for the line, and with
// one it asks for that variable to be set); `secrets` are redacted from any quoted text.
ModelFailure classify_http_failure(long status, const std::string& body, const std::string& retry_after,
                                   std::chrono::system_clock::time_point now, const std::string& model,
                                   const std::string& url, bool has_key, const SecretRedaction& secrets,
                                   const std::string& key_env = {});

// A call that got no HTTP status (CurlPool's on_done with status 0 and its reason). The reason
// transport_reason::event_too_large is E-MOD-036 naming `caps.event`; `secrets` are redacted
// from the reason (libcurl's own words for a failure it does not classify).
ModelFailure classify_transport_failure(const std::string& reason, const std::string& url, bool received_bytes,
                                        const SecretRedaction& secrets = SecretRedaction(),
                                        const StreamCaps& caps = StreamCaps());

// A streamed answer that passed one of its caps: E-MOD-033 text, 034 reasoning, 035 tool-call
// arguments, 036 one event; `limit` is the cap in bytes.
ModelFailure stream_cap_failure(StreamCap which, std::size_t limit);

// A body or event that is not what the wire format says; `what` says what was wrong.
ModelFailure malformed_response(const std::string& what);
ModelFailure malformed_stream(const std::string& what);

// Text a server sent, made safe to show: every secret replaced (first), control characters
// dropped, cut short (at most 300 bytes, UTF-8 kept whole).
std::string quote_server_text(const std::string& text, const SecretRedaction& secrets);

} // namespace mur
