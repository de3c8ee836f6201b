// egress_grant.cpp — see egress_grant.hpp.
#include "messages/credentials/egress_grant.hpp"

#include "messages/credentials/virtual_address.hpp"
#include "messages/vocabulary/model_endpoint.hpp"

#include <algorithm>
#include <cctype>

namespace mur {
namespace {

std::string host_form(std::string h) {
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!h.empty() && h.back() == '.') h.pop_back();
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  return h;
}

struct Entry {
  std::string scheme; // "", "http" or "https"
  std::string host;
  int port = 0; // 0: any (no scheme) or the scheme's own
};

Entry entry_of(const std::string& text) {
  Entry e;
  std::string rest = text;
  if (const auto sep = rest.find("://"); sep != std::string::npos) {
    e.scheme = host_form(rest.substr(0, sep));
    rest = rest.substr(sep + 3);
  }
  // [v6]:port, host:port, or a bare host
  std::string port;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close != std::string::npos && close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
    rest = rest.substr(0, close == std::string::npos ? rest.size() : close + 1);
  } else if (const auto colon = rest.rfind(':'); colon != std::string::npos) {
    port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  e.host = host_form(rest);
  if (!port.empty() && port.size() <= 5 && std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) e.port = std::stoi(port);
  if (e.port == 0 && e.scheme == "http") e.port = 80;
  if (e.port == 0 && e.scheme == "https") e.port = 443;
  return e;
}

} // namespace

EgressGrant judge_egress(const std::vector<std::string>& allow, const std::string& host_in, int port, bool tls) {
  const std::string host = host_form(host_in);
  if (is_formation_host(host))
    return {false, "a formation's virtual address, which only call-member reaches", true};
  const bool loopback = is_loopback_host(host);
  for (const auto& text : allow) {
    const Entry e = entry_of(text);
    if (e.scheme == "http" && tls) continue;
    if (e.scheme == "https" && !tls) continue;
    if (e.port != 0 && e.port != port) continue;
    if (e.host == host || (e.host == "localhost" && loopback)) return {true, ""};
  }
  return {false, "not in capabilities.network.allow"};
}

} // namespace mur
