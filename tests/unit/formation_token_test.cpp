// FormationAuthority mints, FormationVerifier checks: every refusal of docs/spec/door.md
// §Formation tokens, in its order.
#include <catch2/catch.hpp>

#include <sodium.h>

#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "token_forge.hpp"

using namespace mur;
using mur::test::ForgeKey;
using mur::test::kFormation;
using mur::test::kOtherFormation;
using Kind = FormationVerdict::Kind;

namespace {

std::string payload(const std::string& f, const std::string& from, const std::string& to) {
  return formation_payload(f, from, to);
}

} // namespace

TEST_CASE("a minted token has the exact format and verifies at its door", "[credentials]") {
  FormationAuthority authority(kFormation);
  FormationToken token = authority.mint("coder", "reviewer");
  const std::string& text = token.expose();
  REQUIRE(text.rfind("mft1.", 0) == 0);
  const auto dot1 = text.find('.'), dot2 = text.rfind('.');
  const std::string p64 = text.substr(dot1 + 1, dot2 - dot1 - 1);
  CHECK(b64url::decode(p64).value() ==
        "{\"formation\":\"" + kFormation + "\",\"from\":\"coder\",\"to\":\"reviewer\"}");
  CHECK(text.size() - dot2 - 1 == 86); // 64-byte signature, unpadded
  // The signature is over the domain-separated input, verifiable with libsodium directly.
  const std::string input = std::string("murmur-formation-token-v1") + '\x1f' + "mft1" + '\x1f' + p64;
  const std::string sig = b64url::decode(text.substr(dot2 + 1)).value();
  CHECK(crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(sig.data()),
                                    reinterpret_cast<const unsigned char*>(input.data()),
                                    input.size(), authority.verify_key().data()) == 0);

  FormationVerifier door(kFormation, "reviewer", authority.verify_key());
  FormationVerdict v = door.verify(token);
  CHECK(v.kind == Kind::Ok);
  CHECK(v.caller == "coder");
  CHECK(v.credential() == "member:coder");
}

TEST_CASE("each formation has its own key", "[credentials]") {
  FormationAuthority a(kFormation), b(kFormation);
  CHECK(a.verify_key() != b.verify_key());
  FormationVerifier door_b(kFormation, "reviewer", b.verify_key());
  CHECK(door_b.verify(a.mint("coder", "reviewer")).kind == Kind::Invalid);
}

TEST_CASE("a valid token at another door is NotPermitted, naming the caller", "[credentials]") {
  FormationAuthority authority(kFormation);
  FormationVerifier other_door(kFormation, "tester", authority.verify_key());
  FormationVerdict v = other_door.verify(authority.mint("coder", "reviewer"));
  CHECK(v.kind == Kind::NotPermitted);
  CHECK(v.caller == "coder");
}

TEST_CASE("a token of another formation is Invalid, even signed by this key", "[credentials]") {
  ForgeKey key;
  FormationVerifier door(kFormation, "reviewer", key.pk);
  CHECK(door.verify(key.token(payload(kFormation, "coder", "reviewer"))).kind == Kind::Ok);
  // Foreign formation, addressed to another door: still Invalid, never NotPermitted.
  CHECK(door.verify(key.token(payload(kOtherFormation, "coder", "reviewer"))).kind == Kind::Invalid);
  CHECK(door.verify(key.token(payload(kOtherFormation, "coder", "tester"))).kind == Kind::Invalid);
}

TEST_CASE("every single-byte change of a valid token is Invalid", "[credentials]") {
  FormationAuthority authority(kFormation);
  const std::string good = authority.mint("coder", "reviewer").expose();
  // Doors of both the audience and another member: neither may see anything but Invalid.
  FormationVerifier door(kFormation, "reviewer", authority.verify_key());
  FormationVerifier elsewhere(kFormation, "tester", authority.verify_key());
  const unsigned char masks[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF, 0x5A};
  std::size_t tried = 0;
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (unsigned char m : masks) {
      std::string bad = good;
      bad[i] = char(static_cast<unsigned char>(bad[i]) ^ m);
      const auto a = door.verify(bad), b = elsewhere.verify(bad);
      INFO("byte " << i << " mask " << int(m));
      REQUIRE(a.kind == Kind::Invalid);
      REQUIRE(b.kind == Kind::Invalid);
      REQUIRE(a.caller.empty());
      ++tried;
    }
  }
  CHECK(tried == good.size() * sizeof masks);
}

TEST_CASE("truncated, padded, extended or re-signed tokens are Invalid", "[credentials]") {
  FormationAuthority authority(kFormation);
  const std::string good = authority.mint("coder", "reviewer").expose();
  FormationVerifier door(kFormation, "reviewer", authority.verify_key());
  REQUIRE(door.verify(good).ok());
  for (std::size_t n = 0; n < good.size(); ++n) REQUIRE(door.verify(good.substr(0, n)).kind == Kind::Invalid);
  CHECK(door.verify(good + "=").kind == Kind::Invalid);
  CHECK(door.verify(good + "==").kind == Kind::Invalid);
  CHECK(door.verify(good + "A").kind == Kind::Invalid);
  CHECK(door.verify(good + ".").kind == Kind::Invalid);
  CHECK(door.verify(good + ".x").kind == Kind::Invalid);
  CHECK(door.verify(" " + good).kind == Kind::Invalid);
  const auto dot1 = good.find('.'), dot2 = good.rfind('.');
  const std::string p64 = good.substr(dot1 + 1, dot2 - dot1 - 1);
  CHECK(door.verify("mft1." + p64 + "=." + good.substr(dot2 + 1)).kind == Kind::Invalid);
  // Standard (not URL-safe) alphabet.
  std::string std_alpha = good;
  for (char& c : std_alpha) c = c == '-' ? '+' : c == '_' ? '/' : c;
  if (std_alpha != good) CHECK(door.verify(std_alpha).kind == Kind::Invalid);
  // Re-signed under another key.
  ForgeKey other;
  CHECK(door.verify("mft1." + p64 + "." + other.sig_b64(p64)).kind == Kind::Invalid);
  // Another tag, or the signature of another tag's domain.
  CHECK(door.verify("mdt1" + good.substr(4)).kind == Kind::Invalid);
  CHECK(door.verify("MFT1" + good.substr(4)).kind == Kind::Invalid);
  // Missing segments.
  CHECK(door.verify("mft1." + p64).kind == Kind::Invalid);
  CHECK(door.verify("mft1.." + good.substr(dot2 + 1)).kind == Kind::Invalid);
  CHECK(door.verify("mft1." + p64 + ".").kind == Kind::Invalid);
  CHECK(door.verify("").kind == Kind::Invalid);
}

TEST_CASE("non-canonical base64url (non-zero trailing bits) is Invalid", "[credentials]") {
  ForgeKey key;
  FormationVerifier door(kFormation, "reviewer", key.pk);
  const std::string good = key.token(payload(kFormation, "coder", "reviewer"));
  REQUIRE(door.verify(good).ok());
  // The 86-char signature ends in a character carrying 4 unused bits; set one of them.
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string bad = good;
  const char last = bad.back();
  const int idx = int(std::string(alphabet).find(last));
  bad.back() = alphabet[idx ^ 1];
  CHECK(b64url::decode(bad.substr(bad.rfind('.') + 1)) == std::nullopt);
  CHECK(door.verify(bad).kind == Kind::Invalid);
}

TEST_CASE("payloads with extra, missing, repeated or mistyped keys are Invalid", "[credentials]") {
  ForgeKey key;
  FormationVerifier door(kFormation, "reviewer", key.pk);
  const std::string F = "\"formation\":\"" + kFormation + "\"";
  const std::vector<std::string> bad_payloads = {
      "{" + F + ",\"from\":\"coder\"}",                                         // missing to
      "{" + F + ",\"to\":\"reviewer\"}",                                        // missing from
      "{\"from\":\"coder\",\"to\":\"reviewer\"}",                               // missing formation
      "{" + F + ",\"from\":\"coder\",\"to\":\"reviewer\",\"x\":1}",             // extra
      "{" + F + ",\"from\":\"coder\",\"to\":\"reviewer\",\"exp\":\"never\"}",   // extra string
      "{" + F + ",\"from\":\"coder\",\"to\":\"tester\",\"to\":\"reviewer\"}",   // repeated to
      "{" + F + ",\"from\":\"admin\",\"from\":\"coder\",\"to\":\"reviewer\"}",  // repeated from
      "{" + F + "," + F + ",\"from\":\"coder\",\"to\":\"reviewer\"}",           // repeated formation
      "{" + F + ",\"from\":\"coder\",\"to\":[\"reviewer\"]}",                    // not a string
      "{" + F + ",\"from\":1,\"to\":\"reviewer\"}",
      "{\"formation\":null,\"from\":\"coder\",\"to\":\"reviewer\"}",
      "{" + F + ",\"from\":\"Coder\",\"to\":\"reviewer\"}",                     // not a member name
      "{" + F + ",\"from\":\"coder\",\"to\":\"\"}",
      "[\"" + kFormation + "\",\"coder\",\"reviewer\"]",                        // not an object
      "\"x\"",
      "{" + F + ",\"from\":\"coder\",\"to\":\"reviewer\"",                      // not JSON
      "{" + F + ",\"from\":\"coder\",\"to\":\"rev\xff\"}",                      // not UTF-8
      "",
  };
  for (const std::string& p : bad_payloads) {
    INFO(p);
    if (p.empty()) {
      CHECK(door.verify("mft1.." + key.sig_b64("")).kind == Kind::Invalid);
      continue;
    }
    CHECK(door.verify(key.token(p)).kind == Kind::Invalid);
  }
  // Whitespace and key order do not matter once signed: the claims do.
  CHECK(door.verify(key.token("{ \"to\":\"reviewer\", \"from\":\"coder\", " + F + " }")).ok());
}

TEST_CASE("the door with the right name but a key of its own refuses", "[credentials]") {
  ForgeKey minted, door_key;
  FormationVerifier door(kFormation, "reviewer", door_key.pk);
  CHECK(door.verify(minted.token(payload(kFormation, "coder", "reviewer"))).kind == Kind::Invalid);
}

TEST_CASE("the authority refuses bad names and bad ids", "[credentials]") {
  CHECK_THROWS_AS(FormationAuthority("frm_nothex"), std::invalid_argument);
  FormationAuthority authority(kFormation);
  CHECK_THROWS_AS(authority.mint("Coder", "reviewer"), std::invalid_argument);
  CHECK_THROWS_AS(authority.mint("coder", "a\"b"), std::invalid_argument);
}
