// Input an attacker sends a door (docs/spec/choices.md §Hostile input): JSON nested far deeper
// than any
// A2A message (a 140 KB body nested 70,000 deep used to overflow the stack), lenient shapes,
// and HTTP framing, all through the same door_intake the RESTinio server calls.
#include <catch2/catch.hpp>

#include "capsule/manifest.hpp"
#include "http/door_intake.hpp"
#include "http/jsonrpc_call.hpp"
#include "launcher/admission/roster.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/strict_json.hpp"

using namespace mur;
using namespace mur::a2a;

namespace {

std::string nested_array(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }
std::string nested_object(std::size_t depth) {
  std::string s;
  for (std::size_t i = 0; i < depth; ++i) s += R"({"a":)";
  s += "0";
  return s + std::string(depth, '}');
}

std::string send_with_part(const std::string& part, const std::string& message_extra = "") {
  return R"({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[)" +
         part + "]" + message_extra + "}}}";
}

int envelope_code(const std::string& body) {
  auto env = parse_envelope(body);
  if (auto* p = std::get_if<RpcProblem>(&env)) return p->code;
  auto dr = door_request_from(std::get<RpcCall>(env));
  if (auto* p = std::get_if<RpcProblem>(&dr)) return p->code;
  return 0;
}

} // namespace

TEST_CASE("nesting: 70,000 and 100,000 levels are refused -32700 before they are parsed", "[a2a][hostile]") {
  // Before the bound, both bodies killed the process (stack overflow copying or dumping them).
  for (const std::string& body : {send_with_part(R"({"data":)" + nested_array(70000) + "}"),
                                  send_with_part(R"({"text":"hi"})", R"(,"metadata":)" + nested_object(100000))}) {
    auto env = parse_envelope(body);
    REQUIRE(std::holds_alternative<RpcProblem>(env));
    const auto& p = std::get<RpcProblem>(env);
    CHECK(p.code == -32700);
    CHECK(p.message.find("nested deeper than 64 levels") != std::string::npos);
    CHECK(p.id.is_null());
  }
  // Exactly the bound is read; brackets inside strings (escaped quotes too) do not count.
  CHECK(json_depth_within(nested_array(64)));
  CHECK_FALSE(json_depth_within(nested_array(65)));
  CHECK(json_depth_within(R"({"t":"[[[[[[\"[[[[[["})", 2));
  CHECK_FALSE(json_depth_within(R"({"t":"\\",[[]})", 2));
  CHECK(envelope_code(send_with_part(R"({"data":)" + nested_array(50) + "}")) == 0);
  // The client side and the sealed-payload reader are bounded alike.
  CHECK(door_reply_from(200, nested_array(100000)).rpc_code == -32603);
  CHECK_FALSE(parse_strict_json(nested_object(100000)).has_value());
  CHECK_FALSE(parse_bounded_json(nested_array(65)).has_value());
  CHECK(parse_bounded_json(nested_array(64)).has_value());
}

TEST_CASE("strict SendMessage: metadata, extensions, one content field of the right type", "[a2a][hostile]") {
  const std::string text = R"({"text":"hi"})";
  CHECK(envelope_code(send_with_part(text, R"(,"metadata":{"k":1})")) == 0);
  CHECK(envelope_code(send_with_part(text, R"(,"metadata":[])")) == -32602);
  CHECK(envelope_code(send_with_part(text, R"(,"metadata":"x")")) == -32602);
  CHECK(envelope_code(send_with_part(text, R"(,"extensions":["https://x"])")) == 0);
  CHECK(envelope_code(send_with_part(text, R"(,"extensions":"https://x")")) == -32602);
  CHECK(envelope_code(send_with_part(text, R"(,"extensions":[1])")) == -32602);
  for (const char* part : {R"({"data":null})", R"({"data":0})", R"({"data":"s"})", R"({"data":true})",
                           R"({"text":1})", R"({"raw":5})", R"({"url":{}})", R"({"text":"a","data":null})",
                           R"({"text":"a","metadata":3})", "{}"}) {
    INFO(part);
    CHECK(envelope_code(send_with_part(part)) == -32602);
  }
  CHECK(envelope_code(send_with_part(R"({"data":{"k":[1,2]}})")) == 0);
  CHECK(envelope_code(send_with_part(R"({"data":[1]})")) == 0);
  CHECK(envelope_code(send_with_part(R"({"raw":"aGk="})")) == -32005);
  // params.metadata too.
  CHECK(envelope_code(R"({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"metadata":7,"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"}]}}})") == -32602);
  // referenceTaskIds reach the door deduplicated, in order.
  auto env = parse_envelope(send_with_part(text, R"(,"referenceTaskIds":["tsk_b","tsk_a","tsk_b"])"));
  auto dr = door_request_from(std::get<RpcCall>(env));
  REQUIRE(std::holds_alternative<DoorRequest>(dr));
  CHECK(std::get<DoorRequest>(dr).reference_task_ids == std::vector<std::string>{"tsk_b", "tsk_a"});
}

namespace {

struct Intake {
  DoorTokenIssuer issuer;
  DoorIntakeSetup setup;
  std::string operator_token;
  Intake(bool authenticated) {
    setup.door_tokens = &issuer;
    setup.card.capsule_name = "coder";
    setup.card.capsule_version = "1.0.0";
    setup.card.session_id = "ses_t";
    setup.card.url = "http://127.0.0.1:1";
    setup.card.authenticated = authenticated;
    operator_token = std::string(issuer.issue({}).front().token.expose());
  }
  std::variant<HttpAnswer, DoorCall> run(HttpRequestFacts r) const { return door_intake(r, setup); }
};

HttpRequestFacts post(std::string body, bool with_token, const Intake& in) {
  HttpRequestFacts r;
  r.method = "POST";
  r.target = "/";
  r.headers = {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"},
               {"Content-Length", std::to_string(body.size())}};
  if (with_token) r.headers.emplace_back("Authorization", "Bearer " + in.operator_token);
  static thread_local std::string held;
  held = std::move(body);
  r.body = held;
  return r;
}

int status_of(const std::variant<HttpAnswer, DoorCall>& v) {
  if (auto* a = std::get_if<HttpAnswer>(&v)) return a->status;
  return 0; // a door call
}

nlohmann::json body_of(const std::variant<HttpAnswer, DoorCall>& v) {
  REQUIRE(std::holds_alternative<HttpAnswer>(v));
  return nlohmann::json::parse(std::get<HttpAnswer>(v).body);
}

} // namespace

TEST_CASE("door intake: an authenticated door judges the token before it parses the body", "[http][hostile]") {
  Intake in(true);
  const std::string deep = send_with_part(R"({"data":)" + nested_array(70000) + "}");
  auto refused = in.run(post(deep, false, in));
  CHECK(status_of(refused) == 401);
  CHECK(body_of(refused)["error"] == "unauthenticated");
  auto bad = post("{not json", false, in);
  bad.headers.emplace_back("Authorization", "Bearer mdt1.x.y");
  CHECK(body_of(in.run(bad))["error"] == "invalid_token");
  // With the token, the same body is refused as JSON-RPC, nesting named.
  auto deep_ok = in.run(post(deep, true, in));
  CHECK(status_of(deep_ok) == 200);
  CHECK(body_of(deep_ok)["error"]["code"] == -32700);
  // A good call goes on to the door, verdict attached.
  auto call = in.run(post(R"({"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_1"}})", true, in));
  REQUIRE(std::holds_alternative<DoorCall>(call));
  CHECK(std::get<DoorCall>(call).request.task_id == "tsk_1");
  CHECK(std::get<DoorCall>(call).request.verdict.credential == "operator");
}

TEST_CASE("door intake: HTTP framing answered with its status and a JSON body", "[http][hostile]") {
  Intake in(true);
  const std::string good = R"({"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}})";
  auto status = [&](HttpRequestFacts r) { return status_of(in.run(std::move(r))); };

  auto v = post(good, true, in);
  v.http_major = 9;
  v.http_minor = 9;
  CHECK(status(v) == 505);

  auto long_url = post(good, true, in);
  long_url.target = "/?" + std::string(1 << 20, 'a');
  CHECK(status(long_url) == 414);

  auto long_header = post(good, true, in);
  long_header.headers.emplace_back("X-Big", std::string(1 << 20, 'b'));
  CHECK(status(long_header) == 431);

  auto get_root = post(good, true, in);
  get_root.method = "GET";
  auto a = in.run(get_root);
  CHECK(status_of(a) == 405);
  CHECK(std::get<HttpAnswer>(a).allow == "POST");
  CHECK(body_of(a)["error"] == "method_not_allowed");

  auto post_card = post(good, true, in);
  post_card.target = "/.well-known/agent-card.json";
  CHECK(status(post_card) == 405);

  auto get_card = post("", false, in);
  get_card.method = "GET";
  get_card.target = "/.well-known/agent-card.json";
  auto card = in.run(get_card);
  CHECK(status_of(card) == 200);
  CHECK(body_of(card)["name"] == "coder");

  auto elsewhere = post(good, true, in);
  elsewhere.target = "/x";
  CHECK(status(elsewhere) == 404);

  auto no_length = post(good, true, in);
  no_length.headers.erase(no_length.headers.begin() + 2);
  CHECK(status(no_length) == 411);
  auto chunked = no_length;
  chunked.headers.emplace_back("Transfer-Encoding", "chunked");
  CHECK(status(chunked) == 0);

  CHECK(status(post(std::string((1 << 20) + 1, ' '), false, in)) == 413); // before the credential

  auto wrong_type = post(good, true, in);
  wrong_type.headers[0].second = "text/plain";
  auto w = in.run(wrong_type);
  CHECK(status_of(w) == 415);
  CHECK(body_of(w)["error"] == "unsupported_media_type");
  wrong_type.headers.pop_back(); // the credential comes first
  CHECK(status(wrong_type) == 401);

  // A header that is not UTF-8 never makes the answer unwritable.
  auto odd_version = post(good, true, in);
  odd_version.headers[1].second = "\xff\xfe";
  auto o = in.run(odd_version);
  CHECK(status_of(o) == 200);
  CHECK(body_of(o)["error"]["code"] == -32009);
}

TEST_CASE("YAML: a stray ',' at the top level is refused, not looped on", "[yaml][hostile]") {
  // Found by tests/fuzz/manifest_fuzz: yaml-cpp 0.7's LoadAll never returned on these (and grew
  // without bound), so `mur doctor` or `mur run` hung on such a manifest or roster.
  for (const char* text : {", a\n", "! , x\n", "[a]\n, x\n", "a: 1\n...\n, x\n",
                           "hat a task saying \"slow\"\n# thinks\n   , Gedentialss: [SendMessage, GetTask]}}\n"}) {
    INFO(text);
    CHECK_THROWS_AS(parse_manifest(text, "murmur.yaml"), Failure);
    CHECK_THROWS_AS(parse_roster(text, "roster.yaml"), Failure);
  }
}
