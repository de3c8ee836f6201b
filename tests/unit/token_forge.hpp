// token_forge.hpp — test-only: build formation tokens by hand, under a key the test holds, so
// every malformed shape can be signed and shown to be refused for its shape, not its signature.
#pragma once

#include <sodium.h>

#include <array>
#include <string>

#include "messages/credentials/formation_token.hpp"
#include "messages/credentials/sodium_ready.hpp"
#include "messages/vocabulary/base64url.hpp"

namespace mur::test {

struct ForgeKey {
  FormationVerifyKey pk{};
  std::array<unsigned char, 64> sk{};
  ForgeKey() {
    ensure_sodium();
    crypto_sign_keypair(pk.data(), sk.data());
  }
  std::string sig_b64(const std::string& payload_b64) const {
    const std::string input = formation_signed_input(payload_b64);
    unsigned char sig[64];
    crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(input.data()),
                         input.size(), sk.data());
    return b64url::encode(sig, sizeof sig);
  }
  // A correctly signed token whose payload is exactly `payload_json`.
  std::string token(const std::string& payload_json, const std::string& tag = "mft1") const {
    const std::string p = b64url::encode(payload_json);
    return tag + "." + p + "." + sig_b64(p);
  }
};

inline const std::string kFormation = "frm_0192f0c0a1b2c3d4e5f60718293a4b5c";
inline const std::string kOtherFormation = "frm_0192f0c0a1b2c3d4e5f60718293a4b5d";

} // namespace mur::test
