// strict_json.hpp — JSON parsing for sealed and channel payloads, where a repeated key is an error.
//
// Invariant: a text with a key repeated in any one object is refused, never silently resolved to
// its last value (nlohmann's default), so what was signed or sent is what is read. The result
// says nothing about the text beyond "not strict JSON": callers never quote the input.
// Seed: "payload: {"formation":"frm_…","from":"<member>","to":"<member>"}" — and nothing else.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mur {

// The parsed value, or nullopt for invalid JSON (including invalid UTF-8) or a repeated key.
std::optional<nlohmann::json> parse_strict_json(std::string_view text);

} // namespace mur
