// session_store.cpp — see session_store.hpp.
#include "capsule/session_store.hpp"

#include "capsule/murmur_home.hpp"

#include <filesystem>

namespace fs = std::filesystem;

namespace mur {

std::string session_store() { return murmur_home() + "/sessions"; }

bool trusted_session_place(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_symlink(dir, ec)) return true;
  const fs::path target = fs::canonical(dir, ec);
  if (ec) return false;
  const fs::path store = fs::weakly_canonical(session_store(), ec);
  if (ec) return false;
  // The target must be a direct child of the store: <store>/<ses_id>.
  return target.parent_path() == store && target.filename() == fs::path(dir).filename();
}

} // namespace mur
