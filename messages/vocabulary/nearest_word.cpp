#include "messages/vocabulary/nearest_word.hpp"

#include <algorithm>

namespace mur {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string nearest_word(const std::string& word, const std::vector<std::string>& known) {
  if (word.size() < 2) return {}; // one letter could be the start of anything
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(word, k);
    if (d < best_d) best = k, best_d = d;
  }
  // A typo: at most a third of the longer word wrong (at least 1, at most 3 edits); or the
  // word is the start of exactly that one (`doc` → `doctor`).
  const std::size_t longer = std::max(word.size(), best.size());
  const std::size_t allowed = std::min<std::size_t>(3, std::max<std::size_t>(1, longer / 3));
  if (best_d != std::string::npos && best_d <= allowed) return best;
  std::string prefixed;
  for (const auto& k : known)
    if (word.size() >= 2 && k.rfind(word, 0) == 0) {
      if (!prefixed.empty()) return {};
      prefixed = k;
    }
  return prefixed;
}

} // namespace mur
