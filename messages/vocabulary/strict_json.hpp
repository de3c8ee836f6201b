// strict_json.hpp — JSON from outside the process, read with bounds: a nesting limit for every
// untrusted text, and for sealed and channel payloads no repeated key either.
//
// Invariants: no untrusted text reaches nlohmann's parser unless `json_depth_within` said yes
// first (a linear scan of brackets outside strings, no recursion), so no document this process
// holds from outside nests deeper than `max_json_depth`, and every later walk, copy or dump of
// it is bounded. A text with a key repeated in any one object is refused by
// `parse_strict_json`, never silently resolved to its last value (nlohmann's default), so what
// was signed or sent is what is read. Neither says more about a refused text than "not strict
// JSON": callers never quote the input.
// Rule: a token payload holds formation, from and to, and nothing else
// (docs/spec/door.md §Formation tokens).
// Rule (docs/spec/choices.md §Hostile input): a body nested 70,000 deep must not kill a door.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mur {

// Far above what an A2A message, a token or a channel line needs (they nest < 10 deep).
inline constexpr std::size_t max_json_depth = 64;

// Whether no array or object in `text` opens more than `limit` levels deep (brackets inside
// strings, escapes included, do not count). Says nothing else about the text's validity.
bool json_depth_within(std::string_view text, std::size_t limit = max_json_depth);

// The parsed value, or nullopt for text nested deeper than max_json_depth or invalid JSON
// (including invalid UTF-8). Keys may repeat (nlohmann keeps the last).
std::optional<nlohmann::json> parse_bounded_json(std::string_view text);

// The parsed value, or nullopt for invalid JSON (including invalid UTF-8), a repeated key, or a
// text nested deeper than max_json_depth.
std::optional<nlohmann::json> parse_strict_json(std::string_view text);

} // namespace mur
