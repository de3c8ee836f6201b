#include "capsule/capsule_store.hpp"

#include "capsule/murmur_home.hpp"
#include "messages/failure.hpp"
#include "messages/ids.hpp"
#include "messages/sha256.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace mur {
namespace {

constexpr std::size_t max_capsule_file_bytes = 16u << 20;

std::optional<std::string> read_file(const std::string& path, std::string* why = nullptr) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (why) *why = std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    if (why) *why = "not a regular file";
    return std::nullopt;
  }
  if (static_cast<std::size_t>(st.st_size) > max_capsule_file_bytes) {
    if (why) *why = "larger than 16 MiB";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (why) *why = "cannot be opened";
    return std::nullopt;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void write_file(const std::string& path, const std::string& bytes, mode_t mode = 0644) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) throw Failure("E-INS-003", "cannot write " + path, "check the store's permissions and free space");
  ::chmod(path.c_str(), mode);
}

// The capsule's files as (relative path, bytes), or a reason they cannot all be read.
std::variant<std::vector<std::pair<std::string, std::string>>, std::string>
read_capsule_files(const std::string& dir, const Manifest& m) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& rel : m.files()) {
    std::string why;
    auto bytes = read_file(dir + "/" + rel, &why);
    if (!bytes) return rel + " cannot be read (" + why + ")";
    files.emplace_back(rel, std::move(*bytes));
  }
  return files;
}

std::string recorded_digest(const std::string& dir) {
  auto text = read_file(dir + "/.sha256");
  if (!text) return {};
  std::string s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return is_sha256_hex(s) ? s : std::string{};
}

// Reads one stored capsule and checks it: record present, manifest parses and names this
// name/version, bytes hash to the record. Fills `problem` when anything fails.
StoredCapsule inspect_stored(const std::string& dir, const std::string& name,
                             const std::string& version, StoreScope scope,
                             std::optional<Manifest>* manifest_out = nullptr) {
  StoredCapsule c{name, version, recorded_digest(dir), dir, scope, {}, {}};
  if (c.sha256.empty()) {
    c.problem = "its recorded sha256 (.sha256) is missing or malformed";
    return c;
  }
  std::optional<Manifest> m;
  try {
    auto text = read_file(dir + "/murmur.yaml");
    if (!text) {
      c.problem = "its murmur.yaml cannot be read";
      return c;
    }
    m = parse_manifest(*text, dir + "/murmur.yaml");
    m->folder = dir;
  } catch (const Failure& f) {
    c.problem = "its murmur.yaml does not parse: " + f.message();
    return c;
  }
  if (m->name != name || m->version != version) {
    c.problem = "its murmur.yaml names " + m->name + "@" + m->version + ", not " + name + "@" + version;
    return c;
  }
  c.description = m->description;
  auto files = read_capsule_files(dir, *m);
  if (auto* why = std::get_if<std::string>(&files)) {
    c.problem = *why;
    return c;
  }
  if (capsule_digest(std::get<0>(files)) != c.sha256) {
    c.problem = "its bytes no longer match the sha256 recorded at install";
    return c;
  }
  if (manifest_out) *manifest_out = std::move(m);
  return c;
}

void remove_quietly(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

} // namespace

const char* to_string(StoreScope s) { return s == StoreScope::project ? "project" : "global"; }

StoreRoots StoreRoots::for_project(const std::string& project_dir) {
  return StoreRoots{project_dir + "/.murmur/artifacts", murmur_home() + "/artifacts"};
}

InstallOutcome install_capsule(const std::string& source_dir, const std::string& store_root,
                               StoreScope scope, bool force) {
  struct stat st {};
  if (::stat(source_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Failure("E-INS-001", source_dir + " is not a directory",
                  "give the folder that holds the capsule's murmur.yaml");
  Manifest m = load_manifest_dir(source_dir);
  auto files = read_capsule_files(source_dir, m);
  if (auto* why = std::get_if<std::string>(&files))
    throw Failure("E-INS-001", source_dir + ": " + *why, "make every file the manifest names readable");
  const auto& contents = std::get<0>(files);
  const std::string digest = capsule_digest(contents);

  const std::string parent = store_root + "/" + m.name;
  const std::string target = parent + "/" + m.version;
  InstallOutcome outcome;
  outcome.kind = InstallOutcome::Kind::installed;
  if (fs::exists(fs::symlink_status(target))) {
    const std::string existing = recorded_digest(target);
    if (existing == digest) {
      StoredCapsule c = inspect_stored(target, m.name, m.version, scope);
      if (c.problem.empty()) {
        outcome.capsule = c;
        outcome.kind = InstallOutcome::Kind::unchanged;
        return outcome;
      }
    }
    if (!force)
      throw Failure("E-INS-002",
                    m.name + "@" + m.version + " is already installed in the " + to_string(scope) +
                      " store with other bytes",
                    "raise the version in murmur.yaml, or pass --force to replace the installed copy");
    outcome.kind = InstallOutcome::Kind::replaced;
  }

  make_private_dirs(parent);
  const std::string stage = parent + "/.tmp-" + ids::uuid7_hex();
  try {
    make_private_dirs(stage);
    for (const auto& [rel, bytes] : contents) {
      const std::string dest = stage + "/" + rel;
      const auto slash = dest.rfind('/');
      if (slash != std::string::npos && slash > stage.size()) make_private_dirs(dest.substr(0, slash));
      write_file(dest, bytes);
    }
    write_file(stage + "/.sha256", digest + "\n");
    nlohmann::json meta{{"name", m.name},        {"version", m.version},
                        {"description", m.description}, {"sha256", digest},
                        {"files", m.files()}};
    write_file(stage + "/.meta.json", meta.dump(2) + "\n");
    // The staged copy must hash as the source did (the source may have changed meanwhile).
    StoredCapsule staged = inspect_stored(stage, m.name, m.version, scope);
    if (!staged.problem.empty())
      throw Failure("E-INS-001", source_dir + " changed while it was being installed",
                    "run mur install again");

    std::string old;
    if (outcome.kind == InstallOutcome::Kind::replaced) {
      old = parent + "/.old-" + ids::uuid7_hex();
      if (::rename(target.c_str(), old.c_str()) != 0)
        throw Failure("E-INS-003", "cannot move the installed " + target + " aside (" + std::strerror(errno) + ")",
                      "check the store's permissions");
    }
    if (::rename(stage.c_str(), target.c_str()) != 0) {
      const int err = errno;
      if (!old.empty()) ::rename(old.c_str(), target.c_str());
      throw Failure("E-INS-003", "cannot move the new copy into " + target + " (" + std::strerror(err) + ")",
                    "check the store's permissions");
    }
    if (!old.empty()) remove_quietly(old);
  } catch (...) {
    remove_quietly(stage);
    throw;
  }
  outcome.capsule = StoredCapsule{m.name, m.version, digest, target, scope, m.description, {}};
  return outcome;
}

std::vector<StoredCapsule> list_store(const std::string& store_root, StoreScope scope) {
  std::vector<StoredCapsule> out;
  std::error_code ec;
  if (!fs::exists(store_root, ec)) return out;
  auto names = fs::directory_iterator(store_root, ec);
  if (ec)
    throw Failure("E-INS-003", "the " + std::string(to_string(scope)) + " store " + store_root +
                                 " cannot be read (" + ec.message() + ")",
                  "check its permissions");
  for (const auto& name_entry : names) {
    const std::string name = name_entry.path().filename().string();
    if (name.empty() || name[0] == '.' || !name_entry.is_directory(ec)) continue;
    auto versions = fs::directory_iterator(name_entry.path(), ec);
    if (ec) {
      out.push_back({name, "?", "", name_entry.path().string(), scope, "", "its folder cannot be read"});
      continue;
    }
    for (const auto& version_entry : versions) {
      const std::string version = version_entry.path().filename().string();
      if (version.empty() || version[0] == '.' || !version_entry.is_directory(ec)) continue;
      out.push_back(inspect_stored(version_entry.path().string(), name, version, scope));
    }
  }
  std::sort(out.begin(), out.end(), [](const StoredCapsule& a, const StoredCapsule& b) {
    return std::tie(a.name, a.version) < std::tie(b.name, b.version);
  });
  return out;
}

std::variant<ResolvedCapsule, ResolveMiss> resolve_capsule(const StoreRoots& roots,
                                                          const std::string& name,
                                                          const std::string& version) {
  for (auto [root, scope] : {std::pair{roots.project, StoreScope::project},
                             std::pair{roots.global, StoreScope::global}}) {
    const std::string dir = root + "/" + name + "/" + version;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(dir, ec))) continue;
    std::optional<Manifest> manifest;
    StoredCapsule c = inspect_stored(dir, name, version, scope, &manifest);
    if (!c.problem.empty())
      return ResolveMiss{"the copy in the " + std::string(to_string(scope)) + " store (" + dir + ") cannot be used: " + c.problem,
                         "reinstall it: mur install <capsule folder>" +
                           std::string(scope == StoreScope::global ? " -g" : "") + " --force"};
    return ResolvedCapsule{std::move(c), std::move(*manifest)};
  }
  return ResolveMiss{"not installed at this version (looked in " + roots.project + " and " +
                       roots.global + ")",
                     "install it: mur install <capsule folder> (add -g for the global store)"};
}

} // namespace mur
