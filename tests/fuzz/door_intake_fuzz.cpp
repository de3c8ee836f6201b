// libFuzzer target: a door's request path in-process — the bytes are split into a request line,
// header lines and a body and handed to door_intake, the same function the RESTinio server
// calls for every request, on a public and on an authenticated door (one holding a formation
// verifier). Invariant under test: no request crashes a door, and every answer is JSON.
#include "http/door_intake.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mur;

namespace {

struct Doors {
  DoorTokenIssuer issuer;
  FormationVerifier formation{"frm_0192f0c0a1b2c3d4e5f60718293a4b5c", "coder", FormationVerifyKey{}};
  DoorIntakeSetup open_door, closed_door;
  std::string operator_token;
  Doors() {
    operator_token = std::string(issuer.issue({}).front().token.expose());
    for (auto* s : {&open_door, &closed_door}) {
      s->door_tokens = &issuer;
      s->card.capsule_name = "coder";
      s->card.capsule_version = "1.0.0";
      s->card.session_id = "ses_fuzz";
      s->card.url = "http://127.0.0.1:1";
    }
    closed_door.formation = &formation;
    closed_door.card.authenticated = true;
    closed_door.card.accepts_peer_tasks = true;
  }
};

// "METHOD TARGET HTTP/x.y\n" then "Name: value\n" lines, a blank line, the body. A header value
// `$TOKEN` becomes the operator token, so the fuzzer gets past the credential.
HttpRequestFacts split(std::string_view in, const std::string& token, std::string& body) {
  HttpRequestFacts r;
  auto line = [&in]() {
    auto nl = in.find('\n');
    std::string_view l = in.substr(0, nl);
    in = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
    return std::string(l);
  };
  std::string first = line();
  auto sp1 = first.find(' ');
  r.method = first.substr(0, sp1);
  if (sp1 != std::string::npos) {
    auto sp2 = first.find(' ', sp1 + 1);
    r.target = first.substr(sp1 + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp1 - 1);
    if (sp2 != std::string::npos && first.size() >= sp2 + 9) {
      r.http_major = static_cast<unsigned char>(first[sp2 + 6]) - '0';
      r.http_minor = static_cast<unsigned char>(first[sp2 + 8]) - '0';
    }
  }
  while (!in.empty()) {
    std::string h = line();
    if (h.empty()) break;
    auto colon = h.find(':');
    std::string name = h.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : h.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (value == "Bearer $TOKEN") value = "Bearer " + token;
    r.headers.emplace_back(std::move(name), std::move(value));
  }
  body.assign(in.begin(), in.end());
  r.body = body;
  return r;
}

void check(const std::variant<HttpAnswer, DoorCall>& v) {
  if (auto* a = std::get_if<HttpAnswer>(&v)) {
    if (!nlohmann::json::accept(a->body)) std::abort(); // every answer is JSON
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Doors doors;
  std::string body;
  HttpRequestFacts req = split(std::string_view(reinterpret_cast<const char*>(data), size), doors.operator_token, body);
  check(door_intake(req, doors.open_door));
  check(door_intake(req, doors.closed_door));
  return 0;
}
