#include "actors/task_page.hpp"

#include "messages/vocabulary/base64url.hpp"

#include <cctype>

namespace mur {

std::string encode_cursor(const TaskCursor& c) {
  return b64url::encode(std::to_string(c.updated_ms) + "|" + c.id);
}

std::optional<TaskCursor> decode_cursor(const std::string& token) {
  auto text = b64url::decode(token);
  if (!text) return std::nullopt;
  const auto bar = text->find('|');
  if (bar == std::string::npos || bar == 0 || bar > 19 || bar + 1 >= text->size()) return std::nullopt;
  for (std::size_t i = 0; i < bar; ++i)
    if (!std::isdigit(static_cast<unsigned char>((*text)[i]))) return std::nullopt;
  TaskCursor c;
  try {
    c.updated_ms = std::stoll(text->substr(0, bar));
  } catch (...) {
    return std::nullopt;
  }
  c.id = text->substr(bar + 1);
  for (char ch : c.id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return std::nullopt;
  return c;
}

} // namespace mur
