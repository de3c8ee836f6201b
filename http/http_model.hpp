// http_model.hpp — the model port for `inference.transport: http`: each ModelTurnRequest is one
// POST {endpoint}/chat/completions on the process's CurlPool (no thread per request, nothing
// blocks the actor).
//
// Invariant: the port keeps no conversation: the request's transcript is the whole prompt. The
// model is offered exactly the runtime's tools (messages/wire/runtime_tools.hpp). A streamed answer's
// text goes to the requester as ModelText while it arrives. A 429 or 5xx is tried again after
// the server's Retry-After or an exponential backoff, within `retry` (attempts and total time);
// every other failure, and the last retryable one, answers a failing ModelTurn whose text is
// "E-MOD-…: what happened. Fix: …". The API key is held only as an ApiKey and (for redaction)
// in the port's SecretRedaction, goes only into the Authorization header, and every text of a
// ModelTurn that came from the server — the failure text whole, the answer's text, its tool
// calls, the model name and finish reason of its stats — has gone through that one rule
// (messages/vocabulary/secret_redaction.hpp): no trace field, status, result or failure holds it. A stream
// is read under `caps` (http/stream_caps.hpp); the first cap passed, and any other failure of the
// stream, ends the transfer at once (canceled on the pool) and answers the failure. At most
// about model_stream_window bytes of a stream's events wait for this actor at once: the pool
// pauses the transfer until they are read.
// Rule: docs/models.md (`transport: http`, its retries, its limits, the key never shown).
#pragma once

#include "actors/ports.hpp"
#include "http/stream_caps.hpp"
#include "messages/vocabulary/model_endpoint.hpp"
#include "messages/vocabulary/secret_text.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mur {

class CurlPool;

struct ApiKeyTag {};
using ApiKey = SecretText<ApiKeyTag>;

struct RetryPolicy {
  int max_attempts = 4;                                  // first try included
  std::chrono::milliseconds first_delay{1000};           // then doubled each time
  std::chrono::milliseconds max_delay{30000};            // one wait, Retry-After included
  std::chrono::milliseconds max_total{120000};           // no retry would start after this much time
};

struct HttpModelSetup {
  ModelEndpoint endpoint;
  std::string model;
  std::optional<ApiKey> key;
  std::string key_env; // the variable inference.api_key names ("" ⇒ none): named by E-MOD-010 when it was unset
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  bool stream = true;
  std::chrono::milliseconds request_timeout{300000}; // plain: the whole call; stream: the longest silence
  std::vector<std::pair<std::string, std::string>> params;
  RetryPolicy retry;
  StreamCaps caps;                                   // a streamed answer's caps (and a plain reply's model_reply_max_body)
  std::shared_ptr<CurlPool> pool;
};

model_port spawn_http_model(caf::actor_system& sys, HttpModelSetup setup);

// "E-MOD-…: message. Fix: fix" — how a model failure reads as a task's status text.
struct ModelFailure;
std::string failure_text(const ModelFailure& f);

} // namespace mur
