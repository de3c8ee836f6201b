#include "http/http_refusal.hpp"

#include <nlohmann/json.hpp>

namespace mur {

HttpRefusal http_refusal(const DoorReply& reply, const std::string& realm) {
  HttpRefusal r;
  r.status = reply.http_status;
  nlohmann::ordered_json body;
  body["error"] = reply.refusal;
  body["message"] = reply.refusal_message;
  r.body = body.dump();
  const std::string base = "Bearer realm=\"" + realm + "\"";
  if (reply.refusal == "unauthenticated") r.challenge = base;
  else if (reply.refusal == "invalid_token") r.challenge = base + ", error=\"invalid_token\"";
  else if (reply.refusal == "insufficient_scope")
    r.challenge = base + ", error=\"insufficient_scope\", scope=\"" + reply.refusal_scope + "\"";
  else if (reply.refusal == "not_permitted") r.challenge = base + ", error=\"insufficient_scope\"";
  return r;
}

HttpRefusal payload_too_large(std::size_t limit) {
  HttpRefusal r;
  r.status = 413;
  nlohmann::ordered_json body;
  body["error"] = "payload_too_large";
  body["message"] = "a request body may hold at most " + std::to_string(limit) + " bytes";
  r.body = body.dump();
  return r;
}

} // namespace mur
