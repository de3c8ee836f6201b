// The door over real HTTP (RESTinio + libcurl in-process): a door with a formation verifier
// refuses forged and foreign formation tokens 401 invalid_token and a misaddressed one 403
// not_permitted, before it reads the body (docs/spec/door.md §Request processing order step 2,
// §Refusals at the door, §Formation tokens); a good
// token reaches the door and a bad body is answered only then.
#include <catch2/catch.hpp>

#include "actors/door.hpp"
#include "http/curl_pool.hpp"
#include "http/door_server.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "token_forge.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <future>

using namespace mur;
using json = nlohmann::json;

namespace {

struct Answer {
  long status = 0;
  json body;
};

Answer post(CurlPool& pool, const std::string& url, const std::string& body, std::vector<std::string> headers) {
  std::promise<Answer> done;
  auto f = done.get_future();
  HttpCall c;
  c.url = url + "/";
  c.body = body;
  headers.push_back("Content-Type: application/json");
  headers.push_back("A2A-Version: 1.0");
  c.headers = std::move(headers);
  c.on_done = [&done](long status, std::string b, std::string) {
    done.set_value({status, json::parse(b, nullptr, false)});
  };
  pool.submit(std::move(c));
  return f.get();
}

const std::string get_task = R"({"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_x"}})";

} // namespace

TEST_CASE("HTTP door: forged, foreign and misaddressed formation tokens, in order", "[http][credentials]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  test::ForgeKey key;
  test::ForgeKey other_key;
  const std::string payload_to_me = R"({"formation":")" + test::kFormation + R"(","from":"lead","to":"coder"})";
  const std::string good = key.token(payload_to_me);
  const std::string forged = other_key.token(payload_to_me);
  const std::string foreign = key.token(R"({"formation":")" + test::kOtherFormation + R"(","from":"lead","to":"coder"})");
  const std::string misaddressed = key.token(R"({"formation":")" + test::kFormation + R"(","from":"lead","to":"reviewer"})");

  DoorSetup d;
  d.session_id = "ses_test";
  d.capsule_name = "coder";
  d.authenticated = true;
  d.accepts_peer_tasks = true;
  d.start_task = [](const TaskView&, const Transcript&, const task_owner&) { return task_handle{}; };
  auto door = spawn_door(sys, std::move(d));

  DoorServerSetup s;
  s.system = &sys;
  s.door = door;
  s.door_tokens = std::make_shared<DoorTokenIssuer>();
  s.formation = std::make_shared<FormationVerifier>(test::kFormation, "coder", key.pk);
  s.card.capsule_name = "coder";
  s.card.capsule_version = "1.0.0";
  s.card.session_id = "ses_test";
  s.card.authenticated = true;
  s.card.accepts_peer_tasks = true;
  DoorServer server(std::move(s));
  REQUIRE(server.port() != 0);
  CurlPool pool;
  const std::string url = server.url();
  auto peer = [](const std::string& token) {
    return std::vector<std::string>{"Authorization: Bearer " + token, "x-murmur-task-origin: peer"};
  };

  SECTION("forged and foreign: 401 invalid_token, even with a body that is not JSON") {
    for (const auto* token : {&forged, &foreign}) {
      for (const std::string& body : {get_task, std::string("{not json")}) {
        auto a = post(pool, url, body, peer(*token));
        CHECK(a.status == 401);
        CHECK(a.body["error"] == "invalid_token");
      }
    }
  }
  SECTION("misaddressed: 403 not_permitted naming the caller, before the body is read") {
    for (const std::string& body : {get_task, std::string("{not json")}) {
      auto a = post(pool, url, body, peer(misaddressed));
      CHECK(a.status == 403);
      CHECK(a.body["error"] == "not_permitted");
      CHECK(a.body["message"].get<std::string>().find("'lead'") != std::string::npos);
    }
  }
  SECTION("two Authorization lines are invalid even when both are good") {
    auto a = post(pool, url, get_task, {"Authorization: Bearer " + good, "Authorization: Bearer " + good});
    CHECK(a.status == 401);
    CHECK(a.body["error"] == "invalid_token");
  }
  SECTION("no Authorization: 401 unauthenticated") {
    auto a = post(pool, url, get_task, {});
    CHECK(a.status == 401);
    CHECK(a.body["error"] == "unauthenticated");
  }
  SECTION("the addressed member's token reaches the door; the body is judged after it") {
    auto a = post(pool, url, get_task, peer(good));
    CHECK(a.status == 200);
    CHECK(a.body["error"]["code"] == -32001);
    auto bad = post(pool, url, "{not json", peer(good));
    CHECK(bad.status == 200);
    CHECK(bad.body["error"]["code"] == -32700);
    auto stream = post(pool, url, R"({"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}})", peer(good));
    CHECK(stream.status == 403); // scope before params: formation credentials do not stream
    CHECK(stream.body["error"] == "insufficient_scope");
  }
  server.stop();
  caf::anon_send_exit(door, caf::exit_reason::user_shutdown);
}
