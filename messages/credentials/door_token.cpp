#include "messages/credentials/door_token.hpp"

#include <sodium.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <new>
#include <set>
#include <stdexcept>

#include "messages/credentials/door_scope.hpp"
#include "messages/credentials/sodium_ready.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "messages/vocabulary/strict_json.hpp"

namespace mur {

namespace {

std::string mac_input(std::string_view payload_b64) {
  std::string input(DOOR_TOKEN_DOMAIN);
  input.push_back('\x1f');
  input.append(payload_b64);
  return input;
}

} // namespace

void DoorTokenIssuer::allocate_key() {
  ensure_sodium();
  key_ = static_cast<unsigned char*>(sodium_malloc(crypto_auth_hmacsha256_KEYBYTES));
  if (key_ == nullptr) throw std::bad_alloc();
}

DoorTokenIssuer::DoorTokenIssuer() {
  allocate_key();
  crypto_auth_hmacsha256_keygen(key_);
  sodium_mprotect_readonly(key_);
}

DoorTokenIssuer::DoorTokenIssuer(const unsigned char (&key)[32]) {
  static_assert(crypto_auth_hmacsha256_KEYBYTES == 32, "HMAC-SHA256 keys are 32 bytes");
  allocate_key();
  std::copy(key, key + 32, key_);
  sodium_mprotect_readonly(key_);
}

DoorTokenIssuer::~DoorTokenIssuer() { sodium_free(key_); }

std::string DoorTokenIssuer::mac(std::string_view payload_b64) const {
  const std::string input = mac_input(payload_b64);
  unsigned char out[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256(out, reinterpret_cast<const unsigned char*>(input.data()), input.size(),
                         key_);
  return std::string(reinterpret_cast<const char*>(out), sizeof out);
}

DoorToken DoorTokenIssuer::mint(const DoorGrant& grant) const {
  nlohmann::ordered_json payload;
  payload["credential"] = grant.credential;
  payload["scopes"] = grant.scopes.words();
  return seal(payload.dump());
}

DoorToken DoorTokenIssuer::seal(std::string_view payload) const {
  const std::string payload_b64 = b64url::encode(payload);
  std::string text(DOOR_TOKEN_TAG);
  text.append(".").append(payload_b64).append(".").append(b64url::encode(mac(payload_b64)));
  return DoorToken::adopt(std::move(text));
}

std::vector<IssuedDoorToken> DoorTokenIssuer::issue(const std::vector<DoorGrant>& declared) const {
  std::vector<IssuedDoorToken> out;
  DoorGrant op{std::string(OPERATOR_CREDENTIAL), DoorScopes::all()};
  out.push_back({op, mint(op)});
  std::set<std::string> seen{std::string(OPERATOR_CREDENTIAL)};
  for (const DoorGrant& g : declared) {
    if (g.credential.empty() || g.credential.find(':') != std::string::npos ||
        !seen.insert(g.credential).second) {
      throw std::invalid_argument("a declared door credential name is empty, reserved, repeated "
                                  "or contains ':'");
    }
    out.push_back({g, mint(g)});
  }
  return out;
}

std::optional<DoorGrant> DoorTokenIssuer::open(std::string_view text) const {
  // Shape: `mdt1.<payload>.<mac>`, both canonical base64url, the MAC 32 bytes.
  std::size_t a = text.find('.');
  if (a == std::string_view::npos || text.substr(0, a) != DOOR_TOKEN_TAG) return std::nullopt;
  std::size_t b = text.find('.', a + 1);
  if (b == std::string_view::npos || text.find('.', b + 1) != std::string_view::npos)
    return std::nullopt;
  const std::string_view payload_b64 = text.substr(a + 1, b - a - 1);
  std::optional<std::string> payload = b64url::decode(payload_b64);
  std::optional<std::string> tag = b64url::decode(text.substr(b + 1));
  if (!payload || payload->empty() || !tag || tag->size() != crypto_auth_hmacsha256_BYTES)
    return std::nullopt;
  // MAC, constant time.
  const std::string input = mac_input(payload_b64);
  if (crypto_auth_hmacsha256_verify(reinterpret_cast<const unsigned char*>(tag->data()),
                                    reinterpret_cast<const unsigned char*>(input.data()),
                                    input.size(), key_) != 0) {
    return std::nullopt;
  }
  // JSON → credential → scopes.
  std::optional<nlohmann::json> parsed = parse_strict_json(*payload);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const nlohmann::json& doc = *parsed;
  auto cred = doc.find("credential");
  auto scopes = doc.find("scopes");
  if (cred == doc.end() || !cred->is_string() || cred->get_ref<const std::string&>().empty())
    return std::nullopt;
  if (scopes == doc.end() || !scopes->is_array()) return std::nullopt;
  DoorGrant grant{cred->get<std::string>(), {}};
  for (const auto& s : *scopes) {
    if (!s.is_string()) return std::nullopt;
    auto method = door_method_named(s.get_ref<const std::string&>());
    if (!method || !grant.scopes.add(*method)) return std::nullopt;
  }
  return grant;
}

} // namespace mur
