// nul_fields.hpp — the text a mur process hands another on a descriptor (a plan, a start request,
// kept listings): `key NUL value NUL`, repeated; a path may hold any byte but NUL.
//
// Invariant: for_each_field gives back exactly the pairs put_field wrote, in order; a pair cut
// short at the end is not given.
// Rule: nothing secret on argv (docs/isolation.md §Secrets): such texts travel on memory files.
#pragma once

#include <string>

namespace mur {

inline void put_field(std::string& out, const std::string& key, const std::string& value) {
  out.append(key).append(1, '\0').append(value).append(1, '\0');
}

template <class Fn> // Fn(const std::string& key, const std::string& value)
void for_each_field(const std::string& text, Fn fn) {
  std::size_t at = 0;
  auto field = [&](std::string& into) {
    const auto end = text.find('\0', at);
    if (end == std::string::npos) return false;
    into = text.substr(at, end - at);
    at = end + 1;
    return true;
  };
  for (std::string key, value; field(key) && field(value);) fn(key, value);
}

} // namespace mur
