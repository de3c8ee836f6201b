// model_failure.hpp — what went wrong talking to a Chat Completions server, as the `E-MOD-…`
// family: a code, a message, a Fix line, and whether trying again may help and when.
//
// Invariant: a ModelFailure never holds an API key: 401/403 never quote the server's text (some
// servers echo part of the key), and every other quoted server text has the key, when given,
// replaced by "[redacted]" and is cut to 300 bytes. Only 429 and 5xx (and transport hiccups
// before any byte arrived) are retryable; `retry_after` is the server's Retry-After, when it
// sent a usable one.
// Spec: issue 11 items 4–5; models-and-mcp.md "Errors".
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
//   E-MOD-040 the server's content filter stopped the answer (finish_reason content_filter)
#pragma once

#include <chrono>
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
// name what was asked for; `key` (may be empty) is redacted from any quoted text.
ModelFailure classify_http_failure(long status, const std::string& body, const std::string& retry_after,
                                   std::chrono::system_clock::time_point now, const std::string& model,
                                   const std::string& url, const std::string& key);

// A call that got no HTTP status (CurlPool's on_done with status 0 and its reason).
ModelFailure classify_transport_failure(const std::string& reason, const std::string& url, bool received_bytes);

// A body or event that is not what the wire format says; `what` says what was wrong.
ModelFailure malformed_response(const std::string& what);
ModelFailure malformed_stream(const std::string& what);

// Text a server sent, made safe to show: the key replaced, control characters dropped, cut short.
std::string quote_server_text(const std::string& text, const std::string& key);

} // namespace mur
