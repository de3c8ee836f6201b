// http_refusal.hpp — a door's HTTP-level answers that are not JSON-RPC: a refused caller
// (401/403) and a request the door cannot take as HTTP (400, 404, 405, 411, 413, 414, 415,
// 431, 505), each as status, JSON body and headers.
//
// Invariant: the body is exactly {"error":<code>,"message":<text>}. A DoorRefusal maps to its
// status here and nowhere else: unauthenticated and invalid_token ⇒ 401; not_permitted,
// peer_not_accepted, insufficient_scope ⇒ 403. 401s and the formation 403s carry a Bearer
// challenge naming the capsule as realm (and the error, and for insufficient_scope the scope);
// peer_not_accepted carries no challenge and the same bytes every time. A 401 never says why.
// Spec: docs/spec/door.md §Request processing order (steps 1–4, 9), §Refusals at the door;
// RFC 9110 §15.5–§15.6.
#pragma once

#include "messages/wire/door_request.hpp"

#include <cstddef>
#include <string>

namespace mur {

struct HttpRefusal {
  int status = 0;
  std::string body;       // JSON
  std::string challenge;  // WWW-Authenticate value, "" for none
  std::string allow;      // Allow value (405), "" for none
};

// A refused caller (reply.refused() must hold).
HttpRefusal http_refusal(const DoorReply& reply, const std::string& realm);

// Any other HTTP-level error: {"error": code, "message": message}.
HttpRefusal http_error(int status, const std::string& code, const std::string& message);

// 413 for a request body over the limit (checked before anything else reads the body).
HttpRefusal payload_too_large(std::size_t limit);

inline constexpr std::size_t max_request_body = 1024 * 1024;
inline constexpr std::size_t max_request_target = 8 * 1024;   // longer ⇒ 414
inline constexpr std::size_t max_header_field = 8 * 1024;     // one name + value longer ⇒ 431
inline constexpr std::size_t max_header_total = 64 * 1024;    // all fields together longer ⇒ 431

} // namespace mur
