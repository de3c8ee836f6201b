// nearest_word.hpp — the known word a mistyped one most likely meant: "did you mean 'install'?"
// for a command or flag, "did you mean `model`?" for a key of murmur.yaml or roster.yaml.
//
// Invariant: one measure of closeness for every "did you mean" mur prints (edit distance with
// adjacent transpositions, at most a third of the longer word and at most 3 edits, or the one
// known word the typed one starts), so a suggestion is never far-fetched; "" when none is close.
// Rule: the command line and the files users write say what they mean
// (docs/spec/choices.md §A usable command line).
#pragma once

#include <string>
#include <vector>

namespace mur {

// Edit distance with adjacent transpositions (optimal string alignment).
std::size_t edit_distance(const std::string& a, const std::string& b);

// The known word closest to `word`, or "" when none is close enough to be a likely typo.
std::string nearest_word(const std::string& word, const std::vector<std::string>& known);

} // namespace mur
