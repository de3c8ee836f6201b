// No token text reaches any string the code produces other than expose() (and the channel line
// render_bundle writes on purpose): not a refusal, not an exception's what(), not a Failure.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "messages/credentials/door_authorization.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "token_forge.hpp"

using namespace mur;

namespace {

// The distinctive parts of a token: its payload and signature segments, and 16-char slices.
std::vector<std::string> secrets_of(const std::string& token) {
  std::vector<std::string> out;
  const auto d1 = token.find('.'), d2 = token.rfind('.');
  out.push_back(token.substr(d1 + 1, d2 - d1 - 1));
  out.push_back(token.substr(d2 + 1));
  for (std::size_t i = 5; i + 16 <= token.size(); i += 8) out.push_back(token.substr(i, 16));
  return out;
}

void check_clean(const std::string& produced, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) {
    INFO("produced: " << produced.substr(0, 300));
    REQUIRE(produced.find(s) == std::string::npos);
  }
}

} // namespace

TEST_CASE("no token text reaches a refusal, an exception or a verdict", "[credentials]") {
  FormationAuthority authority(test::kFormation);
  const FormationToken token = authority.mint("coder", "reviewer");
  const std::string text = token.expose();
  const auto secrets = secrets_of(text);
  std::vector<std::string> produced;

  // Verdicts at every door, for the token and for damaged copies of it.
  FormationVerifier doors[] = {{test::kFormation, "reviewer", authority.verify_key()},
                               {test::kFormation, "tester", authority.verify_key()},
                               {test::kOtherFormation, "reviewer", authority.verify_key()}};
  DoorTokenIssuer issuer;
  for (const auto& door : doors) {
    for (const std::string& t : {text, text + "x", text.substr(0, 40), "mft1." + text.substr(5, 30) + ".zz"}) {
      FormationVerdict v = door.verify(t);
      produced.push_back(v.caller);
      produced.push_back(v.credential());
      DoorAuthorization a = verify_authorization({"Bearer " + t}, issuer, &door);
      produced.push_back(a.credential);
      produced.push_back(a.caller);
      for (const auto& s : a.scopes.words()) produced.push_back(s);
    }
  }

  // Every bundle refusal, with the token inside the refused line.
  FormationBundle b;
  b.formation_id = test::kFormation;
  b.member = "coder";
  b.verify_key = authority.verify_key();
  b.calls.push_back({"reviewer", token});
  const std::string line = render_bundle(b);
  REQUIRE(line.find(text) != std::string::npos); // the one place it is written on purpose
  std::vector<std::string> bad_lines = {
      line.substr(0, line.size() - 3),                                       // truncated
      line + "\xff",                                                         // not UTF-8
      std::string(line).replace(line.find("\"reviewer\""), 10, "\"tester\""), // wrong callee
      std::string(line).insert(line.find(text) + text.size(), "x"),          // damaged token
      line.substr(0, line.size() - 2) + ",{\"name\":\"reviewer\",\"token\":\"" + text + "\"}]}", // repeat
  };
  for (const auto& bad : bad_lines) {
    try {
      parse_bundle(bad);
      FAIL("accepted");
    } catch (const ChannelLineRefused& e) {
      produced.push_back(e.what());
    }
  }
  try {
    parse_bundle(line, test::kOtherFormation);
    FAIL("accepted");
  } catch (const ChannelLineRefused& e) {
    produced.push_back(e.what());
  }
  // Exceptions thrown by minting and issuing.
  try {
    authority.mint(text, "reviewer");
  } catch (const std::exception& e) {
    produced.push_back(e.what());
  }
  try {
    issuer.issue({{text, {}}, {text, {}}});
  } catch (const std::exception& e) {
    produced.push_back(e.what());
  }
  // (A token text as a scope can no longer be asked for: scopes are door methods, not words.)
  CHECK(produced.size() > 40);
  for (const auto& p : produced) check_clean(p, secrets);
}

TEST_CASE("no door token text reaches a refusal", "[credentials]") {
  DoorTokenIssuer issuer;
  const std::string op = issuer.issue({})[0].token.expose();
  const auto secrets = secrets_of(op);
  for (const std::string& t : {op, op + "x", op.substr(0, 30)}) {
    DoorAuthorization a = verify_authorization({"Bearer " + t, "Bearer " + t}, issuer, nullptr);
    check_clean(a.credential + a.caller, secrets);
    a = verify_authorization({"Bearer " + t}, issuer, nullptr);
    check_clean(a.credential + a.caller, secrets);
  }
}
