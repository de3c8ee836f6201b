#include "http/door_intake.hpp"

#include "http/a2a_json.hpp"
#include "http/http_refusal.hpp"
#include "messages/credentials/door_authorization.hpp"
#include "messages/credentials/door_refusal.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"

#include <cctype>
#include <cstring>

namespace mur {
namespace {

using json = nlohmann::json;

bool caseless_eq(const std::string& a, const char* b) {
  std::size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

std::string trimmed(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

HttpAnswer answer(const HttpRefusal& r) {
  HttpAnswer a;
  a.status = r.status;
  a.body = r.body;
  a.challenge = r.challenge;
  a.allow = r.allow;
  return a;
}

HttpAnswer error(int status, const std::string& code, const std::string& message, const std::string& allow = {}) {
  HttpAnswer a = answer(http_error(status, code, message));
  a.allow = allow;
  return a;
}

HttpAnswer rpc_answer(const json& body) {
  HttpAnswer a;
  a.body = wire_dump(body);
  return a;
}

constexpr const char* card_path = "/.well-known/agent-card.json";

// HTTP itself: version, sizes, path, method, length. nullopt when the request is a POST / or a
// GET of the card that may go on.
std::optional<HttpAnswer> framing(const HttpRequestFacts& req, const std::string& path) {
  if (req.http_major != 1)
    return error(505, "http_version_not_supported", "this door speaks HTTP/1.1");
  if (req.target.size() > max_request_target)
    return error(414, "uri_too_long",
                 "a request target may hold at most " + std::to_string(max_request_target) + " bytes");
  std::size_t total = 0;
  for (const auto& [name, value] : req.headers) {
    const std::size_t one = name.size() + value.size();
    total += one;
    if (one > max_header_field || total > max_header_total)
      return error(431, "request_header_fields_too_large",
                   "a header field may hold at most " + std::to_string(max_header_field) + " bytes, all of them " +
                     std::to_string(max_header_total));
  }
  if (path == card_path) {
    if (req.method != "GET") return error(405, "method_not_allowed", "the agent card is read with GET", "GET");
    return std::nullopt;
  }
  if (path != "/")
    return error(404, "not_found", "this door serves POST / and GET /.well-known/agent-card.json");
  if (req.method != "POST")
    return error(405, "method_not_allowed", "this door answers POST / with a JSON-RPC body", "POST");
  bool length = false;
  for (const auto& [name, value] : req.headers)
    if (caseless_eq(name, "content-length") || caseless_eq(name, "transfer-encoding")) length = true;
  if (!length) return error(411, "length_required", "a POST / carries Content-Length (or chunked Transfer-Encoding)");
  if (req.body.size() > max_request_body) return answer(payload_too_large(max_request_body));
  return std::nullopt;
}

// Steps 6–14 once the caller passed: a JSON-RPC answer, a scope refusal, or the door call.
std::variant<HttpAnswer, DoorCall> read_call(const HttpRequestFacts& req, const DoorIntakeSetup& setup,
                                             const std::vector<std::string>& versions, DoorRequest base) {
  auto env = a2a::parse_envelope(req.body);
  if (auto* p = std::get_if<a2a::RpcProblem>(&env)) return rpc_answer(a2a::error_response(*p));
  DoorCall out;
  out.call = std::move(std::get<a2a::RpcCall>(env));
  const a2a::RpcCall& call = out.call;
  auto version = a2a::check_version(versions, call.id);
  if (auto* vp = std::get_if<a2a::RpcProblem>(&version)) return rpc_answer(a2a::error_response(*vp));
  if (a2a::is_push_method(call.method))
    return rpc_answer(a2a::error_response({call.id, rpc::push_not_supported,
                                           "Push notifications are not supported by this door",
                                           "PUSH_NOTIFICATION_NOT_SUPPORTED", json::object()}));
  if (!is_door_scope(call.door_method))
    return rpc_answer(a2a::error_response({call.id, rpc::method_not_found, "Method not found", "", json::object()}));
  auto dr = a2a::door_request_from(call);
  if (auto* pp = std::get_if<a2a::RpcProblem>(&dr)) {
    // The method's scope is judged before its params (step 11 before 13–14).
    if (setup.card.authenticated && !base.verdict.reaches(call.door_method)) {
      DoorReply refusal;
      refusal.refusal = DoorRefusal::insufficient_scope;
      refusal.refusal_message = scope_refusal_message(true, base.verdict, call.door_method);
      refusal.refusal_scope = call.door_method;
      return answer(http_refusal(refusal, setup.card.capsule_name));
    }
    return rpc_answer(a2a::error_response(*pp));
  }
  out.request = std::move(std::get<DoorRequest>(dr));
  out.request.verdict = std::move(base.verdict);
  out.request.peer_origin = base.peer_origin;
  return out;
}

} // namespace

std::string wire_dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::variant<HttpAnswer, DoorCall> door_intake(const HttpRequestFacts& req, const DoorIntakeSetup& setup) {
  const std::string path = req.target.substr(0, req.target.find('?'));
  if (auto early = framing(req, path)) return *early;
  if (path == card_path) {
    HttpAnswer card;
    card.body = wire_dump(a2a::agent_card(setup.card));
    card.no_cache = true;
    return card;
  }

  // Steps 2–3 from the headers alone: nothing of the body is read before the caller passed.
  std::vector<std::string> auth, versions;
  std::string origin, content_type;
  for (const auto& [name, value] : req.headers) {
    if (caseless_eq(name, "authorization")) auth.push_back(value);
    else if (caseless_eq(name, "a2a-version")) versions.push_back(value);
    else if (caseless_eq(name, "x-murmur-task-origin")) origin = trimmed(value);
    else if (caseless_eq(name, "content-type")) content_type = value;
  }
  std::vector<std::string_view> views(auth.begin(), auth.end());
  DoorRequest base;
  base.verdict = verify_authorization(views, *setup.door_tokens, setup.formation);
  base.peer_origin = origin == "peer";
  if (auto no = judge_caller(setup.card.authenticated, setup.card.accepts_peer_tasks, base.verdict, base.peer_origin)) {
    DoorReply refused;
    refused.refusal = no->kind;
    refused.refusal_message = no->message;
    return answer(http_refusal(refused, setup.card.capsule_name));
  }

  std::string ct = content_type.substr(0, content_type.find(';'));
  for (auto& c : ct) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (trimmed(ct) != "application/json")
    return error(415, "unsupported_media_type", "this door reads Content-Type: application/json");
  if (req.body.empty()) return error(404, "not_found", "this door answers POST / with a JSON-RPC body");
  return read_call(req, setup, versions, std::move(base));
}

} // namespace mur
