// door_intake.hpp — everything a door's HTTP adapter decides about one request before the door
// actor sees it, as a pure function of the request (no socket, no RESTinio, no actor), so the
// server and the fuzzer drive the same code.
//
// Invariant: the order of docs/spec/door.md §Request processing order, HTTP framing first:
//   505 (not HTTP/1.x; RESTinio 0.6 always reports 1.1, see door_server.cpp) → 414 (target over 8 KiB) → 431 (a header field over 8 KiB, or all over
//   64 KiB) → 404 (a path this door does not serve) → 405 (GET / or POST on the card) → 411 (a
//   POST / with neither Content-Length nor Transfer-Encoding) → 413 (body over 1 MiB) →
//   [step 2–3: the credential and peer consent, judged from the headers alone by `judge_caller`,
//   before one byte of the body is parsed] → 415 (Content-Type not application/json) → 404
//   (empty body) → -32700 (not JSON, or nested deeper than max_json_depth) → -32600 → -32009 →
//   -32003 (push methods) → -32601 → 403 insufficient_scope → -32602/-32005 (params) → a
//   DoorCall for the door actor.
// Everything answered here is an HttpAnswer; JSON-RPC errors are HTTP 200.
// Spec: docs/spec/door.md §Request processing order; docs/spec/a2a.md §JSON-RPC binding;
// docs/spec/choices.md §Hostile input.
#pragma once

#include "http/jsonrpc_call.hpp"
#include "messages/wire/agent_card.hpp"
#include "messages/wire/door_request.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace mur {

class DoorTokenIssuer;
class FormationVerifier;

// One HTTP request as the parser delivered it.
struct HttpRequestFacts {
  std::string method;  // "GET", "POST", …
  std::string target;  // the request target, query included
  unsigned http_major = 1;
  unsigned http_minor = 1;
  std::vector<std::pair<std::string, std::string>> headers; // in order, names as sent
  std::string_view body;
};

// An answer the adapter writes as it is.
struct HttpAnswer {
  int status = 200;
  std::string body;            // JSON
  std::string challenge;       // WWW-Authenticate, "" for none
  std::string allow;           // Allow, "" for none
  bool no_cache = false;       // Cache-Control: no-cache (the card)
};

// A POST / whose caller passed and whose body names a door method with good params.
struct DoorCall {
  a2a::RpcCall call;
  DoorRequest request; // verdict and peer origin set
};

struct DoorIntakeSetup {
  const DoorTokenIssuer* door_tokens = nullptr; // this session's issuer, never null
  const FormationVerifier* formation = nullptr; // null outside a formation
  a2a::CardFacts card;                          // url filled in
};

std::variant<HttpAnswer, DoorCall> door_intake(const HttpRequestFacts& req, const DoorIntakeSetup& setup);

// JSON for the wire: invalid UTF-8 that came from a header is replaced, never thrown on.
std::string wire_dump(const nlohmann::json& j);

} // namespace mur
