#include "actors/answer_fence.hpp"

#include <cstddef>

namespace mur {

namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// True when `text` holds `word` (lowercase) at `at`, ignoring ASCII letter case.
bool matches_at(std::string_view text, std::size_t at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (lower(text[at + i]) != word[i]) return false;
  return true;
}

} // namespace

std::string sanitise_fence_source(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (char c : source) {
    if (c == '>') continue;
    out.push_back((c == '\r' || c == '\n') ? ' ' : c);
  }
  return out;
}

std::string neutralise_fences(std::string_view content) {
  std::string out;
  out.reserve(content.size());
  for (std::size_t i = 0; i < content.size(); ++i) {
    out.push_back(content[i]);
    if (content[i] != '<') continue;
    const std::size_t after = i + 1;
    const std::size_t name_at = (after < content.size() && content[after] == '/') ? after + 1 : after;
    if (matches_at(content, name_at, fence_tag)) out.append(fence_marker);
  }
  return out;
}

std::string fence(std::string_view source, std::string_view content) {
  std::string out = "<";
  out.append(fence_tag);
  out.append(" source=");
  out.append(sanitise_fence_source(source));
  out.append(">\n");
  out.append(neutralise_fences(content));
  if (out.back() != '\n') out.push_back('\n');
  out.append("</");
  out.append(fence_tag);
  out.append(">");
  return out;
}

} // namespace mur
