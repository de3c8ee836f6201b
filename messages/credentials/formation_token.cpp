#include "messages/credentials/formation_token.hpp"

#include <nlohmann/json.hpp>

namespace mur {

bool is_member_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  if (name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string formation_payload(std::string_view formation_id, std::string_view from,
                              std::string_view to) {
  nlohmann::ordered_json payload;
  payload["formation"] = std::string(formation_id);
  payload["from"] = std::string(from);
  payload["to"] = std::string(to);
  return payload.dump();
}

std::string formation_signed_input(std::string_view payload_b64) {
  std::string input;
  input.reserve(FORMATION_TOKEN_DOMAIN.size() + FORMATION_TOKEN_TAG.size() + payload_b64.size() + 2);
  input.append(FORMATION_TOKEN_DOMAIN);
  input.push_back('\x1f');
  input.append(FORMATION_TOKEN_TAG);
  input.push_back('\x1f');
  input.append(payload_b64);
  return input;
}

} // namespace mur
