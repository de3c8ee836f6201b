// formation_authority.hpp — the one principal of a formation: its Ed25519 signing key.
//
// Invariant: the secret key is generated from libsodium's CSPRNG for one formation, lives only in
// sodium_malloc'ed memory that is inaccessible (sodium_mprotect_noaccess) except while a token is
// being signed, and is zeroed and freed (sodium_free) when the authority is dropped. It is never
// copied, written, printed, serialised, or put in an environment variable.
// Rule: the signing key never leaves the launcher's memory: no file, no environment, no message
// (docs/spec/door.md §Formation tokens).
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "messages/credentials/formation_token.hpp"

namespace mur {

class FormationAuthority {
public:
  // A fresh key pair for the formation `formation_id` (`frm_` + 32 lowercase hex).
  explicit FormationAuthority(std::string formation_id);
  ~FormationAuthority();

  FormationAuthority(const FormationAuthority&) = delete;
  FormationAuthority& operator=(const FormationAuthority&) = delete;
  FormationAuthority(FormationAuthority&&) = delete;
  FormationAuthority& operator=(FormationAuthority&&) = delete;

  // The token for the roster edge from → to. Thread-safe.
  FormationToken mint(std::string_view from, std::string_view to) const;

  // The public key every member is handed.
  const FormationVerifyKey& verify_key() const noexcept { return verify_key_; }
  const std::string& formation_id() const noexcept { return formation_id_; }

private:
  std::string formation_id_;
  FormationVerifyKey verify_key_{};
  unsigned char* secret_key_ = nullptr; // sodium_malloc'ed, noaccess between signatures
  mutable std::mutex signing_;
};

} // namespace mur
