// terminal_text.cpp — see terminal_text.hpp.
#include "messages/vocabulary/terminal_text.hpp"

#include <unistd.h>

namespace mur {

namespace {

const char* const hex = "0123456789abcdef";

void escaped(std::string& out, const char* prefix, unsigned char c) {
  out += prefix;
  out += hex[c >> 4];
  out += hex[c & 15];
}

// The length of the well-formed UTF-8 sequence at `i` (2–4), or 0 when there is none.
std::size_t utf8_sequence(std::string_view t, std::size_t i) {
  const auto c = static_cast<unsigned char>(t[i]);
  const std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > t.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(t[i + k]);
    if (d < 0x80 || d > 0xbf) return 0;
  }
  return n;
}

} // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) { // ASCII: a control other than a line break or a tab is written out
      if (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f)) out += static_cast<char>(c);
      else escaped(out, "\\x", c);
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) { // not UTF-8: a lone byte (0x9b is CSI to an 8-bit terminal)
      escaped(out, "\\x", c);
      ++i;
    } else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) { // U+0080–U+009F
      escaped(out, "\\u00", static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string terminal_safe_for(int fd, std::string_view text) {
  return ::isatty(fd) == 1 ? terminal_safe(text) : std::string(text);
}

} // namespace mur
