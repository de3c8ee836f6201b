// text_cut.hpp — the one way a text is cut to a size: at a UTF-8 character boundary, with a
// marker saying so.
//
// Invariant: a cut text holds at most `cap` bytes of the original, never half a UTF-8 character
// (a text that was valid UTF-8 stays valid), followed by the marker; a text within `cap` is left
// as it is. Cutting a text that was already cut the same way gives the same text again.
// Rule: an answer, a call's output and an agent program's output are each kept to 64 KiB
// (docs/ARCHITECTURE.md "Bounds").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mur {

inline constexpr std::size_t answer_cap = 64 * 1024;
inline constexpr std::string_view answer_cut_marker = "\n[runtime: output cut at 64 KiB]";

// Cuts `text` to `cap` bytes (back to the start of a UTF-8 character) and appends `marker`;
// false, and nothing changed, when it was within `cap`.
inline bool cut_to(std::string& text, std::size_t cap, std::string_view marker) {
  if (text.size() <= cap) return false;
  // Already cut this way (e.g. by the egress, then by the task): left as it is.
  if (!marker.empty() && text.size() >= marker.size() && text.size() - marker.size() <= cap &&
      std::string_view(text).substr(text.size() - marker.size()) == marker)
    return true;
  std::size_t at = cap;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  text.resize(at);
  text += marker;
  return true;
}

} // namespace mur
