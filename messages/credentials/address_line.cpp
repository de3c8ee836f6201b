#include "messages/credentials/address_line.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "messages/credentials/formation_channel.hpp"
#include "messages/credentials/formation_token.hpp"
#include "messages/vocabulary/strict_json.hpp"

namespace mur {

namespace {

bool is_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-';
}

bool is_ip_literal_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
         c == '.';
}

[[noreturn]] void refuse(const char* reason) {
  throw ChannelLineRefused(std::string("address line refused: ") + reason);
}

} // namespace

bool is_door_url(std::string_view url) {
  constexpr std::string_view plain = "http://", tls = "https://";
  std::string_view rest;
  if (url.substr(0, plain.size()) == plain) rest = url.substr(plain.size());
  else if (url.substr(0, tls.size()) == tls) rest = url.substr(tls.size());
  else return false;
  std::string_view host;
  if (!rest.empty() && rest.front() == '[') {
    std::size_t close = rest.find(']');
    if (close == std::string_view::npos || close < 2) return false;
    for (char c : rest.substr(1, close - 1))
      if (!is_ip_literal_char(c)) return false;
    host = rest.substr(0, close + 1);
  } else {
    std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    host = rest.substr(0, colon);
    for (char c : host)
      if (!is_host_char(c)) return false;
  }
  std::string_view port = rest.substr(host.size());
  if (port.size() < 2 || port.front() != ':') return false;
  port.remove_prefix(1);
  if (port.size() > 5 || port.front() == '0') return false;
  unsigned value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + unsigned(c - '0');
  }
  return value >= 1 && value <= 65535;
}

std::string render_address_line(const std::vector<MemberAddress>& addresses) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const MemberAddress& a : addresses) {
    nlohmann::ordered_json entry;
    entry["name"] = a.name;
    if (a.url.empty()) entry["ended"] = true; // the member ended as its lifecycle says
    else if (a.url == restarting_url) entry["restarting"] = true;
    else entry["url"] = a.url;
    list.push_back(std::move(entry));
  }
  nlohmann::ordered_json line;
  line["addresses"] = std::move(list);
  return line.dump();
}

std::vector<MemberAddress> parse_address_line(std::string_view line) {
  if (auto problem = channel_line_problem(line)) throw ChannelLineRefused("address line refused: " + *problem);
  std::optional<nlohmann::json> parsed = parse_strict_json(line);
  if (!parsed) refuse("it is not JSON, or repeats a key");
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object() || doc.size() != 1 || !doc.contains("addresses") || !doc.at("addresses").is_array())
    refuse("it is not an object with exactly the key \"addresses\" holding a list");
  std::vector<MemberAddress> out;
  std::set<std::string> names;
  for (const auto& entry : doc.at("addresses")) {
    const bool ended = entry.is_object() && entry.contains("ended");
    const bool restarting = entry.is_object() && entry.contains("restarting");
    if (!entry.is_object() || entry.size() != 2 || !entry.contains("name") ||
        (!entry.contains("url") && !ended && !restarting))
      refuse("an entry is not an object with exactly the keys \"name\" and \"url\" (or \"ended\", or \"restarting\")");
    const auto& name = entry.at("name");
    if (!name.is_string() || !is_member_name(name.get_ref<const std::string&>()))
      refuse("an entry's name is not a member name");
    if (!names.insert(name.get<std::string>()).second) refuse("a member is listed twice");
    if (ended) {
      if (entry.at("ended") != true) refuse("an entry's \"ended\" is not true");
      out.push_back({name.get<std::string>(), ""});
      continue;
    }
    if (restarting) {
      if (entry.at("restarting") != true) refuse("an entry's \"restarting\" is not true");
      out.push_back({name.get<std::string>(), restarting_url});
      continue;
    }
    const auto& url = entry.at("url");
    if (!url.is_string() || !is_door_url(url.get_ref<const std::string&>()))
      refuse("an entry's url is not http(s)://host:port");
    out.push_back({name.get<std::string>(), url.get<std::string>()});
  }
  return out;
}

} // namespace mur
