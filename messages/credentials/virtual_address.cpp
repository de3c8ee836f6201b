#include "messages/credentials/virtual_address.hpp"

#include "messages/credentials/formation_token.hpp"

namespace mur {

namespace {

bool ends_with_ignoring_case(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  s = s.substr(s.size() - suffix.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

} // namespace

bool is_formation_host(std::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  if (!ends_with_ignoring_case(host, FORMATION_PEER_DOMAIN)) return false;
  return host.size() == FORMATION_PEER_DOMAIN.size() ||
         host[host.size() - FORMATION_PEER_DOMAIN.size() - 1] == '.';
}

std::optional<std::string> virtual_member(std::string_view authority) {
  // `<label>.formation.invalid`, in any letter case for the domain; the label is a member name
  // (compared in lowercase), so `@`, `:`, `[` or another `.` cannot be in it.
  if (authority.size() <= FORMATION_PEER_DOMAIN.size() + 1) return std::nullopt;
  if (!ends_with_ignoring_case(authority, FORMATION_PEER_DOMAIN)) return std::nullopt;
  const std::size_t dot = authority.size() - FORMATION_PEER_DOMAIN.size() - 1;
  if (authority[dot] != '.') return std::nullopt;
  // Host names compare in any letter case; the member name itself is lowercase.
  std::string name(authority.substr(0, dot));
  for (char& c : name)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  if (!is_member_name(name)) return std::nullopt;
  return name;
}

std::string virtual_url(std::string_view name) {
  std::string url("http://");
  url.append(name).append(".").append(FORMATION_PEER_DOMAIN);
  return url;
}

} // namespace mur
