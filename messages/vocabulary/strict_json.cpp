#include "messages/vocabulary/strict_json.hpp"

#include <set>
#include <string>
#include <vector>

namespace mur {

bool json_depth_within(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
    case '"': in_string = true; break;
    case '[':
    case '{':
      if (++depth > limit) return false;
      break;
    case ']':
    case '}':
      if (depth > 0) --depth;
      break;
    default: break;
    }
  }
  return true;
}

std::optional<nlohmann::json> parse_bounded_json(std::string_view text) {
  if (!json_depth_within(text)) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  return doc;
}

std::optional<nlohmann::json> parse_strict_json(std::string_view text) {
  if (!json_depth_within(text)) return std::nullopt;
  // The callback reports an object's start at depth d and its keys at depth d + 1.
  std::vector<std::set<std::string>> keys_at_depth(1);
  bool repeated = false;
  auto watch = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    const std::size_t d = depth < 0 ? 0 : std::size_t(depth);
    if (event == E::object_start) {
      if (keys_at_depth.size() < d + 2) keys_at_depth.resize(d + 2);
      keys_at_depth[d + 1].clear();
    } else if (event == E::key) {
      if (keys_at_depth.size() < d + 1) keys_at_depth.resize(d + 1);
      if (!keys_at_depth[d].insert(parsed.get<std::string>()).second) repeated = true;
    }
    return true;
  };
  nlohmann::json doc =
      nlohmann::json::parse(text.begin(), text.end(), watch, /*allow_exceptions=*/false);
  if (doc.is_discarded() || repeated) return std::nullopt;
  return doc;
}

} // namespace mur
