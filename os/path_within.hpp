// path_within.hpp — where a path really is, and whether it lies under another.
//
// Invariant: `resolved_path` is absolute and canonical as far as the path exists (symlinks
// followed), the rest appended as written and normalised; `path_within(root, p)` compares whole
// components, so /a/bc is not within /a/b. Used to decide what an agent program may reach.
#pragma once

#include <filesystem>
#include <string>

namespace mur {

std::filesystem::path resolved_path(const std::string& p);
bool path_within(const std::filesystem::path& root, const std::filesystem::path& p);

} // namespace mur
