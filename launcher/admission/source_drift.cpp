#include "launcher/admission/source_drift.hpp"

#include "capsule/manifest.hpp"
#include "messages/vocabulary/failure.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace mur {
namespace {

// name@version → the source folders (relative to the project) whose murmur.yaml names it.
std::map<std::string, std::vector<std::string>> source_folders(const std::string& project) {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& under : {std::string(), std::string("capsules")}) {
    std::error_code ec;
    const fs::path root = under.empty() ? fs::path(project) : fs::path(project) / under;
    std::vector<std::string> names;
    for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (it->is_directory(ec) && it->path().filename().string()[0] != '.') names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      const std::string rel = under.empty() ? name : under + "/" + name;
      if (!fs::is_regular_file(root / name / "murmur.yaml", ec)) continue;
      try {
        const Manifest m = load_manifest_dir((root / name).string());
        out[m.name + "@" + m.version].push_back(rel);
      } catch (const Failure&) {
        // not a capsule folder that parses: no member's source
      }
    }
  }
  return out;
}

} // namespace

std::vector<Warning> source_drift_warnings(const Admission& a) {
  std::vector<Warning> out;
  const auto sources = source_folders(a.roster.project_dir.empty() ? "." : a.roster.project_dir);
  if (sources.empty()) return out;
  for (const auto& m : a.members) {
    if (!m.declared.path.empty()) continue;
    const auto found = sources.find(m.declared.capsule + "@" + m.declared.version);
    if (found == sources.end()) continue;
    for (const auto& rel : found->second) {
      std::string digest;
      try {
        digest = capsule_folder_digest(a.roster.project_dir + "/" + rel);
      } catch (const Failure&) {
        continue; // it could not be installed as it is either: install says why when it is tried
      }
      const auto& stored = m.capsule.stored;
      if (digest == stored.sha256) continue;
      const bool global = stored.scope == StoreScope::global;
      out.push_back(Warning{
        "W-ROS-007",
        "member '" + m.declared.name + "' (" + m.declared.capsule + "@" + m.declared.version + ") runs the copy in the " +
          to_string(stored.scope) + " store (sha256 " + stored.sha256.substr(0, 12) + "…), but " + rel +
          " holds the same capsule and version with other bytes (sha256 " + digest.substr(0, 12) +
          "…): edits made there are not what runs",
        "reinstall it from the project directory: mur install " + std::string(global ? "-g " : "") + rel +
          " --force; or name it by its folder in roster.yaml ({name: " + m.declared.name + ", path: " + rel +
          "}), which mur run and mur doctor install whenever it changed"});
    }
  }
  return out;
}

} // namespace mur
