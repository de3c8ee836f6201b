// formation_token.hpp — the `mft1` formation token's exact bytes.
//
// Invariant: a formation token is `mft1.<b64url(payload)>.<b64url(Ed25519 signature)>`, its
// payload the compact JSON {"formation":"frm_…","from":"<m>","to":"<m>"} in that key order, and
// the signature covers FORMATION_TOKEN_DOMAIN ‖ 0x1f ‖ "mft1" ‖ 0x1f ‖ <payload base64url>.
// The text lives in a FormationToken, which only `expose()` reads (see secret_text.hpp).
// Rule: one token per roster edge, mft1.<base64url payload>.<base64url Ed25519 signature>
// (docs/spec/door.md §Formation tokens).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "messages/vocabulary/secret_text.hpp"

namespace mur {

inline constexpr std::string_view FORMATION_TOKEN_TAG = "mft1";
inline constexpr std::string_view FORMATION_TOKEN_DOMAIN = "murmur-formation-token-v1";
// A formation token is let in as the door credential `member:<from>`.
inline constexpr std::string_view FORMATION_CREDENTIAL_PREFIX = "member:";
inline constexpr std::size_t FORMATION_SIGNATURE_BYTES = 64;

struct FormationTokenTag;
using FormationToken = SecretText<FormationTokenTag>;

// A formation's 32-byte Ed25519 public key: what every member is handed, and nothing that signs.
using FormationVerifyKey = std::array<unsigned char, 32>;

// `^[a-z][a-z0-9-]{0,31}$`: the member names a token may carry.
bool is_member_name(std::string_view name);

// The compact payload JSON, keys in the order formation, from, to.
std::string formation_payload(std::string_view formation_id, std::string_view from,
                              std::string_view to);

// The bytes the signature covers, given the payload's base64url text.
std::string formation_signed_input(std::string_view payload_b64);

} // namespace mur
