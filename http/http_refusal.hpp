// http_refusal.hpp — a door's HTTP-level refusal (401/403/413) as status, JSON body and challenge.
//
// Invariant: the body is exactly {"error":<code>,"message":<text>}; 401s and the formation 403s
// carry a Bearer challenge naming the capsule as realm (and the error, and for
// insufficient_scope the scope); peer_not_accepted carries no challenge and the same bytes
// every time. A 401 never says why.
// Spec: murmur-door.md §1.3 step 3, §2.3.
#pragma once

#include "messages/door_request.hpp"

#include <string>

namespace mur {

struct HttpRefusal {
  int status = 0;
  std::string body;       // JSON
  std::string challenge;  // WWW-Authenticate value, "" for none
};

HttpRefusal http_refusal(const DoorReply& reply, const std::string& realm);

// 413 for a request body over the limit (checked before anything else reads the body).
HttpRefusal payload_too_large(std::size_t limit);

inline constexpr std::size_t max_request_body = 1024 * 1024;

} // namespace mur
