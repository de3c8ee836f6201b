// path_within.cpp — see path_within.hpp.
#include "os/path_within.hpp"

namespace mur {

namespace fs = std::filesystem;

fs::path resolved_path(const std::string& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path out = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : out;
}

bool path_within(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (r->empty()) continue; // a trailing separator
    if (q == p.end() || *r != *q) return false;
  }
  return true;
}

} // namespace mur
