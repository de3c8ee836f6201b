// door_token.hpp — `mdt1` door tokens: the bearer credentials a session's own door accepts.
//
// Invariant: a door token is `mdt1.<b64url(payload)>.<b64url(HMAC-SHA256)>`, payload the compact
// JSON {"credential":"<name>","scopes":[…]}, MAC over "murmur-door-token-v1" ‖ 0x1f ‖
// <payload base64url> under a 32-byte key drawn at random per session and held only in
// sodium_malloc'ed memory. `operator` (every scope) is minted first, then one token per declared
// credential. Opening checks shape → MAC (constant time) → JSON → credential → every scope known;
// any failure is the one "invalid". The token text is a DoorToken: only `expose()` reads it.
// Rule (docs/spec/door.md §Door tokens; docs/spec/choices.md §Protocol choices): door tokens
// are mdt1 (HMAC-SHA256 under a random key per session, kept in memory only): an operator token
// with every scope, and one per declared credential.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/credentials/door_scope.hpp"
#include "messages/vocabulary/secret_text.hpp"

namespace mur {

inline constexpr std::string_view DOOR_TOKEN_TAG = "mdt1";
inline constexpr std::string_view DOOR_TOKEN_DOMAIN = "murmur-door-token-v1";

struct DoorTokenTag;
using DoorToken = SecretText<DoorTokenTag>;

// A credential and what it reaches (a manifest's `network.authentication.credentials` entry).
struct DoorGrant {
  std::string credential;
  DoorScopes scopes;
};

struct IssuedDoorToken {
  DoorGrant grant;
  DoorToken token;
};

class DoorTokenIssuer {
public:
  DoorTokenIssuer(); // a fresh random key
  // A given 32-byte key: for tests that must seal payloads the issuer itself would refuse to mint.
  explicit DoorTokenIssuer(const unsigned char (&key)[32]);
  ~DoorTokenIssuer();
  DoorTokenIssuer(const DoorTokenIssuer&) = delete;
  DoorTokenIssuer& operator=(const DoorTokenIssuer&) = delete;

  // `operator` with every scope first, then one per declared credential, in the given order.
  // Throws std::invalid_argument for a declared name that is empty, `operator`, repeated or
  // contains `:`.
  std::vector<IssuedDoorToken> issue(const std::vector<DoorGrant>& declared) const;

  DoorToken mint(const DoorGrant& grant) const;
  // Seals any payload bytes (tests use it to build well-MACed but bad payloads).
  DoorToken seal(std::string_view payload) const;

  // The grant `text` carries, if this issuer minted it; nullopt for anything else.
  std::optional<DoorGrant> open(std::string_view text) const;

private:
  std::string mac(std::string_view payload_b64) const;
  void allocate_key();
  unsigned char* key_ = nullptr; // sodium_malloc'ed, read-only after creation
};

} // namespace mur
