#include "messages/credentials/door_authorization.hpp"

#include "messages/credentials/door_scope.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"

namespace mur {

namespace {

bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

} // namespace

bool DoorAuthorization::reaches(DoorMethod method) const { return kind == Kind::Ok && scopes.has(method); }

DoorAuthorization verify_authorization(const std::vector<std::string_view>& header_values,
                                       const DoorTokenIssuer& door_tokens,
                                       const FormationVerifier* formation) {
  DoorAuthorization out;
  if (header_values.empty()) {
    out.kind = DoorAuthorization::Kind::Missing;
    return out;
  }
  if (header_values.size() > 1) return out; // Invalid

  const std::string_view value = trim(header_values.front());
  std::size_t space = 0;
  while (space < value.size() && !is_ascii_space(value[space])) ++space;
  if (space == value.size()) return out;
  if (!equals_ignoring_case(value.substr(0, space), "bearer")) return out;
  const std::string_view token = trim(value.substr(space));
  if (token.empty()) return out;

  if (token.substr(0, token.find('.')) == "mft1") {
    if (formation == nullptr) return out;
    FormationVerdict verdict = formation->verify(token);
    if (verdict.kind == FormationVerdict::Kind::Invalid) return out;
    out.is_formation = true;
    out.caller = verdict.caller;
    if (verdict.kind == FormationVerdict::Kind::NotPermitted) {
      out.kind = DoorAuthorization::Kind::NotPermitted;
      return out;
    }
    out.kind = DoorAuthorization::Kind::Ok;
    out.credential = verdict.credential();
    out.scopes = DoorScopes::formation_call();
    return out;
  }

  std::optional<DoorGrant> grant = door_tokens.open(token);
  if (!grant) return out;
  out.kind = DoorAuthorization::Kind::Ok;
  out.credential = std::move(grant->credential);
  out.scopes = std::move(grant->scopes);
  return out;
}

} // namespace mur
