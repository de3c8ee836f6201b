// enum_words.hpp — one enum ↔ word table, read both ways.
//
// Invariant: each vocabulary enum (CallStatus, FormationEvent, …) has exactly one table of its
// wire words; `word_of` and `value_of` read that table, so printing and parsing cannot disagree.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace mur {

template <class E, std::size_t N>
using EnumWords = std::array<std::pair<E, const char*>, N>;

template <class E, std::size_t N>
std::string word_of(const EnumWords<E, N>& words, E value) {
  for (const auto& [v, word] : words)
    if (v == value) return word;
  return "unknown";
}

template <class E, std::size_t N>
std::optional<E> value_of(const EnumWords<E, N>& words, std::string_view word) {
  for (const auto& [v, w] : words)
    if (word == w) return v;
  return std::nullopt;
}

} // namespace mur
