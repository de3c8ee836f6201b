// comma_list.hpp — names joined for a sentence: "a, b, c".
//
// Invariant: one way to list names in the runtime's words (refusals, tool errors, warnings), so
// every message reads alike; an empty list is the empty string.
#pragma once

#include <string>
#include <vector>

namespace mur {

inline std::string comma_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

} // namespace mur
