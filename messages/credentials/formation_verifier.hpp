// formation_verifier.hpp — the check a member's door makes on a formation token.
//
// Invariant: verification runs in a fixed order — tag → signature → payload → formation id — and
// every failure among those four is the one `Invalid`, so a forged or foreign token learns
// nothing. Only a token that passed all four is looked at for its audience: `to` other than this
// door's member is `NotPermitted{caller = from}`. Secret-dependent compares are constant time.
// Rule: tag, then signature, then payload, then formation id; a failure in any of them is the
// same Invalid (docs/spec/door.md §Formation tokens).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "messages/credentials/formation_token.hpp"

namespace mur {

// What a token that passed tag, signature and payload says.
struct FormationClaims {
  std::string formation;
  std::string from;
  std::string to;
};

// Steps 1–3: the claims of `text` if it is a well-formed `mft1` token signed under `key` whose
// payload is exactly {formation, from, to} (strings; member names valid; no key missing, extra or
// repeated). nullopt otherwise — the caller cannot tell which step failed.
std::optional<FormationClaims> open_formation_token(std::string_view text,
                                                    const FormationVerifyKey& key);

// Constant-time equality of two strings (lengths are not secret).
bool same_text(std::string_view a, std::string_view b);

struct FormationVerdict {
  enum class Kind { Ok, Invalid, NotPermitted };
  Kind kind = Kind::Invalid;
  std::string caller; // `from`, when Ok or NotPermitted; empty when Invalid

  bool ok() const noexcept { return kind == Kind::Ok; }
  // The door credential a let-in token is admitted as: `member:<from>`.
  std::string credential() const { return std::string(FORMATION_CREDENTIAL_PREFIX) + caller; }
};

class FormationVerifier {
public:
  FormationVerifier(std::string formation_id, std::string member, const FormationVerifyKey& key);

  FormationVerdict verify(std::string_view token_text) const;
  FormationVerdict verify(const FormationToken& token) const { return verify(token.expose()); }

  const std::string& formation_id() const noexcept { return formation_id_; }
  const std::string& member() const noexcept { return member_; }
  const FormationVerifyKey& verify_key() const noexcept { return key_; }

private:
  std::string formation_id_;
  std::string member_;
  FormationVerifyKey key_;
};

} // namespace mur
