// libFuzzer target: `mdt1` door tokens and `mft1` formation tokens, as text off the wire and as
// payloads sealed/signed under a key the target holds (so the payload reader is reached past the
// MAC and the signature), and Authorization header lines through verify_authorization.
#include "messages/credentials/door_authorization.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "messages/credentials/sodium_ready.hpp"
#include "messages/vocabulary/base64url.hpp"

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using namespace mur;

namespace {

struct Keys {
  DoorTokenIssuer issuer;
  FormationVerifyKey pk{};
  std::array<unsigned char, 64> sk{};
  std::unique_ptr<FormationVerifier> verifier;
  Keys() {
    ensure_sodium();
    crypto_sign_keypair(pk.data(), sk.data());
    verifier = std::make_unique<FormationVerifier>("frm_0192f0c0a1b2c3d4e5f60718293a4b5c", "coder", pk);
  }
  std::string signed_token(std::string_view payload) const {
    const std::string p = b64url::encode(std::string(payload));
    const std::string input = formation_signed_input(p);
    unsigned char sig[64];
    crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(input.data()), input.size(), sk.data());
    return "mft1." + p + "." + b64url::encode(sig, sizeof sig);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Keys keys;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
  case 0: (void)keys.issuer.open(rest); break;
  case 1: (void)keys.issuer.open(keys.issuer.seal(rest).expose()); break;
  case 2: (void)open_formation_token(rest, keys.pk); break;
  case 3: (void)open_formation_token(keys.signed_token(rest), keys.pk); break;
  }
  const std::string bearer = "Bearer " + std::string(rest);
  (void)verify_authorization({bearer}, keys.issuer, keys.verifier.get());
  (void)verify_authorization({rest}, keys.issuer, keys.verifier.get());
  (void)verify_authorization({bearer, bearer}, keys.issuer, nullptr);
  return 0;
}
