#include "messages/credentials/formation_verifier.hpp"

#include <sodium.h>


#include "messages/credentials/sodium_ready.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "messages/vocabulary/strict_json.hpp"

namespace mur {

namespace {

// The three `.`-separated segments of `text`, or nullopt if there are not exactly three.
bool split3(std::string_view text, std::string_view (&out)[3]) {
  std::size_t a = text.find('.');
  if (a == std::string_view::npos) return false;
  std::size_t b = text.find('.', a + 1);
  if (b == std::string_view::npos) return false;
  if (text.find('.', b + 1) != std::string_view::npos) return false;
  out[0] = text.substr(0, a);
  out[1] = text.substr(a + 1, b - a - 1);
  out[2] = text.substr(b + 1);
  return true;
}

// The payload's three claims, when it is a JSON object with exactly the keys formation, from, to
// (each once, each a string, from/to member names).
std::optional<FormationClaims> read_payload(std::string_view payload) {
  std::optional<nlohmann::json> doc = parse_strict_json(payload);
  if (!doc || !doc->is_object() || doc->size() != 3) return std::nullopt;
  auto f = doc->find("formation");
  auto from = doc->find("from");
  auto to = doc->find("to");
  if (f == doc->end() || from == doc->end() || to == doc->end()) return std::nullopt;
  if (!f->is_string() || !from->is_string() || !to->is_string()) return std::nullopt;
  FormationClaims claims{f->get<std::string>(), from->get<std::string>(), to->get<std::string>()};
  if (!is_member_name(claims.from) || !is_member_name(claims.to)) return std::nullopt;
  return claims;
}

} // namespace

bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<FormationClaims> open_formation_token(std::string_view text,
                                                    const FormationVerifyKey& key) {
  ensure_sodium();
  // 1. Tag: exactly three segments, `mft1`, both others canonical base64url and non-empty.
  std::string_view seg[3];
  if (!split3(text, seg)) return std::nullopt;
  if (seg[0] != FORMATION_TOKEN_TAG) return std::nullopt;
  std::optional<std::string> payload = b64url::decode(seg[1]);
  std::optional<std::string> sig = b64url::decode(seg[2]);
  if (!payload || !sig || payload->empty() || sig->empty()) return std::nullopt;
  // 2. Signature: 64 bytes, Ed25519-valid over the domain-separated input.
  if (sig->size() != crypto_sign_BYTES) return std::nullopt;
  const std::string input = formation_signed_input(seg[1]);
  if (crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(sig->data()),
                                  reinterpret_cast<const unsigned char*>(input.data()),
                                  input.size(), key.data()) != 0) {
    return std::nullopt;
  }
  // 3. Payload.
  return read_payload(*payload);
}

FormationVerifier::FormationVerifier(std::string formation_id, std::string member,
                                     const FormationVerifyKey& key)
  : formation_id_(std::move(formation_id)), member_(std::move(member)), key_(key) {}

FormationVerdict FormationVerifier::verify(std::string_view token_text) const {
  FormationVerdict verdict;
  std::optional<FormationClaims> claims = open_formation_token(token_text, key_);
  // 4. Formation id.
  if (!claims || !same_text(claims->formation, formation_id_)) return verdict; // Invalid
  // 5. Audience, only now.
  verdict.caller = claims->from;
  verdict.kind = same_text(claims->to, member_) ? FormationVerdict::Kind::Ok
                                                : FormationVerdict::Kind::NotPermitted;
  return verdict;
}

} // namespace mur
