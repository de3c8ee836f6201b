#include "http/http_refusal.hpp"

#include <nlohmann/json.hpp>

namespace mur {

namespace {

int status_of(DoorRefusal r) {
  switch (r) {
  case DoorRefusal::unauthenticated:
  case DoorRefusal::invalid_token: return 401;
  case DoorRefusal::not_permitted:
  case DoorRefusal::peer_not_accepted:
  case DoorRefusal::insufficient_scope:
  case DoorRefusal::none: break;
  }
  return 403;
}

} // namespace

HttpRefusal http_refusal(const DoorReply& reply, const std::string& realm) {
  HttpRefusal r = http_error(status_of(reply.refusal), to_string(reply.refusal), reply.refusal_message);
  const std::string base = "Bearer realm=\"" + realm + "\"";
  switch (reply.refusal) {
  case DoorRefusal::unauthenticated: r.challenge = base; break;
  case DoorRefusal::invalid_token: r.challenge = base + ", error=\"invalid_token\""; break;
  case DoorRefusal::insufficient_scope:
    r.challenge = base + ", error=\"insufficient_scope\", scope=\"" + to_string(reply.refusal_scope) + "\"";
    break;
  case DoorRefusal::not_permitted: r.challenge = base + ", error=\"insufficient_scope\""; break;
  case DoorRefusal::peer_not_accepted:
  case DoorRefusal::none: break;
  }
  return r;
}

HttpRefusal http_error(int status, const std::string& code, const std::string& message) {
  HttpRefusal r;
  r.status = status;
  nlohmann::ordered_json body;
  body["error"] = code;
  body["message"] = message;
  r.body = body.dump();
  return r;
}

HttpRefusal payload_too_large(std::size_t limit) {
  return http_error(413, "payload_too_large", "a request body may hold at most " + std::to_string(limit) + " bytes");
}

} // namespace mur
