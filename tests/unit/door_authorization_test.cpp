// Authorization header handling (docs/spec/door.md §The Authorization header) with both token
// families.
#include <catch2/catch.hpp>

#include "messages/credentials/door_authorization.hpp"
#include "messages/credentials/door_scope.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "token_forge.hpp"

using namespace mur;
using Kind = DoorAuthorization::Kind;

TEST_CASE("Authorization headers: missing, repeated, wrong scheme", "[credentials]") {
  DoorTokenIssuer issuer;
  const std::string op = issuer.issue({})[0].token.expose();
  CHECK(verify_authorization({}, issuer, nullptr).kind == Kind::Missing);
  const std::string h = "Bearer " + op;
  CHECK(verify_authorization({h}, issuer, nullptr).kind == Kind::Ok);
  CHECK(verify_authorization({h, h}, issuer, nullptr).kind == Kind::Invalid);
  CHECK(verify_authorization({"bearer " + op}, issuer, nullptr).kind == Kind::Ok);
  CHECK(verify_authorization({"BEARER\t " + op + "  "}, issuer, nullptr).kind == Kind::Ok);
  CHECK(verify_authorization({"  Bearer " + op}, issuer, nullptr).kind == Kind::Ok);
  CHECK(verify_authorization({"Basic " + op}, issuer, nullptr).kind == Kind::Invalid);
  CHECK(verify_authorization({"Bearer"}, issuer, nullptr).kind == Kind::Invalid);
  CHECK(verify_authorization({"Bearer "}, issuer, nullptr).kind == Kind::Invalid);
  CHECK(verify_authorization({op}, issuer, nullptr).kind == Kind::Invalid);
  CHECK(verify_authorization({""}, issuer, nullptr).kind == Kind::Invalid);
  CHECK(verify_authorization({"Bearer " + op + " x"}, issuer, nullptr).kind == Kind::Invalid);
}

TEST_CASE("door tokens are let in as their credential with their scopes", "[credentials]") {
  DoorTokenIssuer issuer;
  auto issued = issuer.issue({{"ci", {DoorMethod::send_message, DoorMethod::get_task}}});
  auto op = verify_authorization({"Bearer " + issued[0].token.expose()}, issuer, nullptr);
  CHECK(op.credential == "operator");
  CHECK(op.reaches(DoorMethod::session_stop));
  CHECK_FALSE(op.is_formation);
  auto ci = verify_authorization({"Bearer " + issued[1].token.expose()}, issuer, nullptr);
  CHECK(ci.credential == "ci");
  CHECK(ci.reaches(DoorMethod::get_task));
  CHECK_FALSE(ci.reaches(DoorMethod::cancel_task));
}

TEST_CASE("formation tokens at the door: Ok with five scopes, NotPermitted, Invalid", "[credentials]") {
  DoorTokenIssuer issuer;
  FormationAuthority authority(test::kFormation);
  FormationVerifier reviewer(test::kFormation, "reviewer", authority.verify_key());
  FormationVerifier tester(test::kFormation, "tester", authority.verify_key());
  const std::string h = "Bearer " + authority.mint("coder", "reviewer").expose();

  auto ok = verify_authorization({h}, issuer, &reviewer);
  REQUIRE(ok.kind == Kind::Ok);
  CHECK(ok.is_formation);
  CHECK(ok.credential == "member:coder");
  CHECK(ok.caller == "coder");
  CHECK(ok.scopes.words() == std::vector<std::string>{"SendMessage", "GetTask", "ListTasks", "CancelTask",
                                                      "SubscribeToTask"});
  CHECK(ok.reaches(DoorMethod::subscribe_to_task));
  CHECK_FALSE(ok.reaches(DoorMethod::send_streaming_message));
  CHECK_FALSE(ok.reaches(DoorMethod::session_stop));
  CHECK_FALSE(ok.reaches(DoorMethod::get_extended_agent_card));
  CHECK_FALSE(ok.reaches(DoorMethod::agent_card));
  CHECK_FALSE(ok.reaches(DoorMethod::unknown));

  auto np = verify_authorization({h}, issuer, &tester);
  CHECK(np.kind == Kind::NotPermitted);
  CHECK(np.caller == "coder");
  CHECK(np.scopes.empty());

  // A door in no formation, or another formation's door, learns nothing.
  CHECK(verify_authorization({h}, issuer, nullptr).kind == Kind::Invalid);
  FormationAuthority other(test::kOtherFormation);
  FormationVerifier foreign(test::kOtherFormation, "reviewer", other.verify_key());
  CHECK(verify_authorization({h}, issuer, &foreign).kind == Kind::Invalid);
  // A door token never passes as a formation token, nor the reverse.
  FormationVerifier reviewer2(test::kFormation, "reviewer", authority.verify_key());
  const std::string op = issuer.issue({})[0].token.expose();
  CHECK(verify_authorization({"Bearer mft1" + op.substr(4)}, issuer, &reviewer2).kind == Kind::Invalid);
  CHECK(verify_authorization({"Bearer mdt1" + h.substr(11)}, issuer, &reviewer2).kind == Kind::Invalid);
}
