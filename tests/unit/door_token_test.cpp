// mdt1 door tokens: issuance order, exact format, and the open order shape → MAC → JSON → scopes.
#include <catch2/catch.hpp>

#include <sodium.h>

#include "messages/credentials/door_scope.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/vocabulary/base64url.hpp"

using namespace mur;

namespace {
const unsigned char kKey[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
}

TEST_CASE("operator first with every scope, then each declared credential", "[credentials]") {
  DoorTokenIssuer issuer;
  auto issued = issuer.issue({{"ci", {DoorMethod::send_message, DoorMethod::get_task}}, {"watcher", {}}});
  REQUIRE(issued.size() == 3);
  CHECK(issued[0].grant.credential == "operator");
  CHECK(issued[0].grant.scopes.words().size() == DOOR_SCOPES.size());
  CHECK(issued[1].grant.scopes.words() == std::vector<std::string>{"SendMessage", "GetTask"});
  CHECK(issued[1].grant.credential == "ci");
  CHECK(issued[2].grant.credential == "watcher");
  for (const auto& i : issued) {
    auto g = issuer.open(i.token.expose());
    REQUIRE(g);
    CHECK(g->credential == i.grant.credential);
    CHECK(g->scopes == i.grant.scopes);
  }
  // Another session's issuer (another random key) opens none of them.
  DoorTokenIssuer other;
  for (const auto& i : issued) CHECK_FALSE(other.open(i.token.expose()));
}

TEST_CASE("a door token has the exact mdt1 format and MAC", "[credentials]") {
  DoorTokenIssuer issuer(kKey);
  const std::string text = issuer.mint({"ci", {DoorMethod::send_message, DoorMethod::get_task}}).expose();
  const auto d1 = text.find('.'), d2 = text.rfind('.');
  REQUIRE(text.substr(0, d1) == "mdt1");
  const std::string p64 = text.substr(d1 + 1, d2 - d1 - 1);
  CHECK(b64url::decode(p64).value() == "{\"credential\":\"ci\",\"scopes\":[\"SendMessage\",\"GetTask\"]}");
  const std::string input = std::string("murmur-door-token-v1") + '\x1f' + p64;
  unsigned char mac[32];
  crypto_auth_hmacsha256(mac, reinterpret_cast<const unsigned char*>(input.data()), input.size(), kKey);
  CHECK(text.substr(d2 + 1) == b64url::encode(mac, 32));
}

TEST_CASE("declared credentials that cannot be issued", "[credentials]") {
  DoorTokenIssuer issuer;
  CHECK_THROWS_AS(issuer.issue({{"operator", {}}}), std::invalid_argument);
  CHECK_THROWS_AS(issuer.issue({{"ci", {}}, {"ci", {}}}), std::invalid_argument);
  CHECK_THROWS_AS(issuer.issue({{"member:coder", {}}}), std::invalid_argument);
  CHECK_THROWS_AS(issuer.issue({{"", {}}}), std::invalid_argument);
  // No grant can hold what is no scope: the card probe and an unknown method are not added.
  DoorScopes scopes;
  CHECK_FALSE(scopes.add(DoorMethod::agent_card));
  CHECK_FALSE(scopes.add(DoorMethod::unknown));
  CHECK(scopes.empty());
}

TEST_CASE("every single-byte change of a door token is refused", "[credentials]") {
  DoorTokenIssuer issuer;
  const std::string good = issuer.mint({"ci", {DoorMethod::send_message}}).expose();
  REQUIRE(issuer.open(good));
  for (std::size_t i = 0; i < good.size(); ++i)
    for (unsigned char m : {0x01, 0x20, 0x80, 0xFF}) {
      std::string bad = good;
      bad[i] = char(static_cast<unsigned char>(bad[i]) ^ m);
      INFO("byte " << i);
      REQUIRE_FALSE(issuer.open(bad));
    }
  for (std::size_t n = 0; n < good.size(); ++n) REQUIRE_FALSE(issuer.open(good.substr(0, n)));
  CHECK_FALSE(issuer.open(good + "="));
  CHECK_FALSE(issuer.open(good + ".x"));
}

TEST_CASE("sealed payloads that are not a grant are refused", "[credentials]") {
  DoorTokenIssuer issuer(kKey);
  CHECK(issuer.open(issuer.seal("{\"credential\":\"ci\",\"scopes\":[]}").expose()));
  for (const char* p : {"{\"credential\":\"ci\",\"scopes\":[\"stream/nope\"]}",
                        "{\"credential\":\"ci\",\"scopes\":[\"sendmessage\"]}",
                        "{\"credential\":\"ci\",\"scopes\":[1]}",
                        "{\"credential\":\"ci\",\"scopes\":\"SendMessage\"}",
                        "{\"credential\":\"ci\"}",
                        "{\"scopes\":[]}",
                        "{\"credential\":7,\"scopes\":[]}",
                        "{\"credential\":\"\",\"scopes\":[]}",
                        "{\"credential\":\"ci\",\"credential\":\"operator\",\"scopes\":[]}",
                        "[\"ci\"]",
                        "{\"credential\":\"ci\",\"scopes\":[]",
                        "{\"credential\":\"c\xc3\",\"scopes\":[]}"}) {
    INFO(p);
    CHECK_FALSE(issuer.open(issuer.seal(p).expose()));
  }
}
