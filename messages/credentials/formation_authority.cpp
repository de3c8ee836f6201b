#include "messages/credentials/formation_authority.hpp"

#include <sodium.h>

#include <new>
#include <stdexcept>

#include "messages/credentials/sodium_ready.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "messages/vocabulary/ids.hpp"

namespace mur {

FormationAuthority::FormationAuthority(std::string formation_id)
  : formation_id_(std::move(formation_id)) {
  if (!ids::is_valid(formation_id_, ids::formation)) {
    throw std::invalid_argument("a formation authority needs a formation id (frm_ + 32 hex)");
  }
  ensure_sodium();
  secret_key_ = static_cast<unsigned char*>(sodium_malloc(crypto_sign_SECRETKEYBYTES));
  if (secret_key_ == nullptr) throw std::bad_alloc();
  if (crypto_sign_keypair(verify_key_.data(), secret_key_) != 0) {
    sodium_free(secret_key_);
    throw std::runtime_error("could not generate the formation's key pair");
  }
  sodium_mprotect_noaccess(secret_key_);
}

FormationAuthority::~FormationAuthority() {
  // sodium_free zeroes the region before unmapping it; it needs write access to do so, and
  // re-enables it itself.
  sodium_free(secret_key_);
}

FormationToken FormationAuthority::mint(std::string_view from, std::string_view to) const {
  if (!is_member_name(from) || !is_member_name(to)) {
    throw std::invalid_argument("a formation token names two members ([a-z][a-z0-9-]{0,31})");
  }
  const std::string payload_b64 = b64url::encode(formation_payload(formation_id_, from, to));
  const std::string input = formation_signed_input(payload_b64);
  unsigned char sig[crypto_sign_BYTES];
  {
    std::lock_guard<std::mutex> lock(signing_);
    sodium_mprotect_readonly(secret_key_);
    crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(input.data()),
                         input.size(), secret_key_);
    sodium_mprotect_noaccess(secret_key_);
  }
  std::string text;
  text.reserve(FORMATION_TOKEN_TAG.size() + payload_b64.size() + 2 + 86);
  text.append(FORMATION_TOKEN_TAG).append(".").append(payload_b64).append(".");
  text.append(b64url::encode(sig, sizeof sig));
  return FormationToken::adopt(std::move(text));
}

} // namespace mur
