// model_endpoint.hpp — the base URL of an OpenAI-compatible Chat Completions server, as a
// capsule's `inference.endpoint` names it (the part before `/chat/completions`).
//
// Invariant: a ModelEndpoint exists only for a URL that is `http://` with a loopback host
// (127.0.0.0/8, ::1, localhost), `https://` with any host, or — only when its entry says
// `allow_insecure_http: true` — `http://` with another host (then `insecure` is set, and whoever
// starts it warns W-NET-001); it has no user info, no query and no fragment, and its path never
// ends with '/'. So `chat_completions_url()` is always `<scheme>://<host>[:port]<path>/chat/completions`,
// and a key sent to it over plain HTTP leaves the machine only where the user said so.
// Spec: docs/spec/choices.md §Real models (`http://` only for loopback hosts);
// docs/isolation.md §Plain HTTP off the machine.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mur {

struct ModelEndpoint {
  std::string scheme;   // "http" or "https"
  std::string host;     // as written; an IPv6 literal keeps its brackets
  int port = 0;         // 0 ⇒ the scheme's default
  std::string path;     // "" or "/v1"…, never ending in '/'
  bool loopback = false;
  bool insecure = false;  // plain http:// to a host that is not loopback (allowed by the entry)

  std::string base() const;                 // scheme://host[:port]path
  std::string chat_completions_url() const; // base() + "/chat/completions"
};

// Why a text is not a usable endpoint: `problem` completes "inference.endpoint: …".
struct EndpointProblem {
  std::string problem;
  std::string fix;
};

std::variant<ModelEndpoint, EndpointProblem> parse_model_endpoint(const std::string& url,
                                                                  bool allow_insecure_http = false);

// What W-NET-001 says of an endpoint that is `insecure` ("" otherwise): `what` names the entry
// ("inference.endpoint", "tools[0].url"), `who` the member or capsule; and its Fix.
std::string insecure_http_message(const ModelEndpoint& e, const std::string& who, const std::string& what);
extern const char* const insecure_http_fix;

// 127.0.0.0/8 (dotted quad), ::1 (bracketed or not) and `localhost` (any case, with or
// without a trailing dot).
bool is_loopback_host(const std::string& host);

// `${NAME}` ⇒ NAME (capitals, digits, '_', not starting with a digit); anything else ⇒ nullopt.
std::optional<std::string> env_reference_name(const std::string& text);

// Each `${NAME}` within `text` (a tool server's header value: "Bearer ${KEY}"), in order, with its
// place; nullopt when a `${` opens no such reference.
struct EnvReference {
  std::size_t at = 0;     // where its `${` starts
  std::size_t length = 0; // of `${NAME}`
  std::string name;
};
std::optional<std::vector<EnvReference>> env_references(const std::string& text);

} // namespace mur
