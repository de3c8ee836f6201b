// base64url.hpp — the one base64 every token and key on the formation channel uses.
//
// Invariant: text is URL-safe base64 *without padding*, and decoding is strict: every input
// character is consumed, `=` is refused, and non-zero trailing bits are refused (a decoded value
// re-encodes to exactly the text it came from), so one byte string has exactly one spelling.
// Rule: a token's parts are base64url without padding (docs/spec/door.md §Formation tokens).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mur::b64url {

// Unpadded URL-safe base64 of `n` bytes at `p` (a 32-byte key is 43 characters).
std::string encode(const unsigned char* p, std::size_t n);
std::string encode(std::string_view bytes);

// The bytes `text` spells, or nullopt when it is not canonical unpadded base64url.
// An empty text decodes to an empty string.
std::optional<std::string> decode(std::string_view text);

} // namespace mur::b64url
