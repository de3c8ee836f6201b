#include "capsule/capsule_store.hpp"

#include "capsule/murmur_home.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/sha256.hpp"

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

// What an install copies: every regular file under the folder, in the digest's order.
constexpr std::size_t max_capsule_files = 4096;
constexpr std::size_t max_capsule_total_bytes = 64u << 20;

struct CapsuleFile {
  std::string rel;   // relative to the capsule folder, '/'-separated
  std::string bytes;
  bool executable = false; // any x bit on the source (the copy is 0755, else 0644)
};

// Why a folder's files cannot all be taken, with the code and fix an install refuses with.
struct FilesRefusal {
  std::string code;
  std::string why;
  std::string fix;
};

// Names never taken from a capsule folder: the project store (a capsule folder may be a
// project directory) and version-control folders, wherever they are.
bool skipped_name(const std::string& name) {
  return name == ".murmur" || name == ".git" || name == ".hg" || name == ".svn";
}

// Names the store keeps its own record in, at the top of an installed capsule.
bool record_name(const std::string& name) { return name == ".sha256" || name == ".meta.json"; }

bool inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q)
    if (q == p.end() || *r != *q) return false;
  return true;
}

// Walks `dir` (sorted by name at each level) and reads every file the capsule consists of:
// regular files, and symlinks whose target is a regular file inside the folder (taken as that
// file's bytes). A symlink that leaves the folder, dangles or names a folder is refused
// (E-INS-004); a fifo, socket or device is refused (E-INS-001). `stored`: the walk of an
// installed copy, whose top level also holds the store's record (.sha256, .meta.json).
// The result is in the digest's order: murmur.yaml first, then the others by path, bytewise.
std::variant<std::vector<CapsuleFile>, FilesRefusal> walk_capsule_files(const std::string& dir,
                                                                        bool stored) {
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return FilesRefusal{"E-INS-001", dir + " cannot be read (" + ec.message() + ")", "check its permissions"};
  std::vector<CapsuleFile> out;
  std::size_t total = 0;
  std::vector<std::string> pending{""}; // relative folders still to read
  while (!pending.empty()) {
    const std::string rel_dir = pending.back();
    pending.pop_back();
    const fs::path abs_dir = rel_dir.empty() ? root : root / rel_dir;
    std::vector<std::string> names;
    for (auto it = fs::directory_iterator(abs_dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      names.push_back(it->path().filename().string());
    if (ec)
      return FilesRefusal{"E-INS-001", abs_dir.string() + " cannot be read (" + ec.message() + ")",
                          "make every file and folder in the capsule folder readable"};
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const std::string rel = rel_dir.empty() ? name : rel_dir + "/" + name;
      if (skipped_name(name)) continue;
      if (rel_dir.empty() && record_name(name)) {
        if (stored) continue;
        return FilesRefusal{"E-INS-001", rel + " is a name the store keeps its own record in",
                            "rename or remove " + rel + " in the capsule folder"};
      }
      const fs::path abs = root / rel;
      struct stat st {};
      if (::lstat(abs.c_str(), &st) != 0)
        return FilesRefusal{"E-INS-001", rel + " cannot be read (" + std::strerror(errno) + ")",
                            "make every file in the capsule folder readable"};
      std::string source = abs.string();
      if (S_ISLNK(st.st_mode)) {
        const fs::path target = fs::canonical(abs, ec);
        if (ec)
          return FilesRefusal{"E-INS-004", "the symlink " + rel + " points at nothing (" + ec.message() + ")",
                              "remove the symlink or create what it points at inside the capsule folder"};
        if (!inside(root, target))
          return FilesRefusal{"E-INS-004", "the symlink " + rel + " leaves the capsule folder (it points at " +
                                             target.string() + ")",
                              "copy the file into the capsule folder instead of linking to it"};
        if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
          return FilesRefusal{"E-INS-004", "the symlink " + rel + " points at a folder or at something not a file",
                              "link only to files inside the capsule folder, or move the folder itself there"};
        source = target.string();
      } else if (S_ISDIR(st.st_mode)) {
        pending.push_back(rel);
        continue;
      } else if (!S_ISREG(st.st_mode)) {
        return FilesRefusal{"E-INS-001", rel + " is not a regular file (a fifo, socket or device)",
                            "remove it from the capsule folder"};
      }
      if (out.size() == max_capsule_files)
        return FilesRefusal{"E-INS-001", "the folder holds more than 4096 files",
                            "keep only what the capsule needs in its folder"};
      std::string why;
      auto bytes = read_file(source, &why);
      if (!bytes)
        return FilesRefusal{"E-INS-001", rel + " cannot be read (" + why + ")",
                            "make every file in the capsule folder readable and at most 16 MiB"};
      total += bytes->size();
      if (total > max_capsule_total_bytes)
        return FilesRefusal{"E-INS-001", "the folder's files add up to more than 64 MiB",
                            "keep only what the capsule needs in its folder"};
      out.push_back(CapsuleFile{rel, std::move(*bytes), (st.st_mode & 0111) != 0});
    }
  }
  std::sort(out.begin(), out.end(), [](const CapsuleFile& a, const CapsuleFile& b) {
    const bool am = a.rel == "murmur.yaml", bm = b.rel == "murmur.yaml";
    if (am != bm) return am;
    return a.rel < b.rel;
  });
  return out;
}

// The capsule's files, or why they cannot all be read; every file the manifest names is among
// them.
std::variant<std::vector<CapsuleFile>, FilesRefusal> read_capsule_files(const std::string& dir,
                                                                        const Manifest& m, bool stored) {
  auto walked = walk_capsule_files(dir, stored);
  if (auto* files = std::get_if<std::vector<CapsuleFile>>(&walked))
    for (const auto& named : m.files())
      if (std::none_of(files->begin(), files->end(), [&](const CapsuleFile& f) { return f.rel == named; }))
        return FilesRefusal{"E-INS-001", named + " is missing", "restore it, or correct murmur.yaml"};
  return walked;
}

std::string digest_of(const std::vector<CapsuleFile>& files) {
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(files.size());
  for (const auto& f : files) pairs.emplace_back(f.rel, f.bytes);
  return capsule_digest(pairs);
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
  auto files = read_capsule_files(dir, *m, true);
  if (auto* refusal = std::get_if<FilesRefusal>(&files)) {
    c.problem = refusal->why;
    return c;
  }
  if (digest_of(std::get<0>(files)) != c.sha256) {
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
  auto files = read_capsule_files(source_dir, m, false);
  if (auto* refusal = std::get_if<FilesRefusal>(&files))
    throw Failure(refusal->code, source_dir + ": " + refusal->why, refusal->fix);
  const auto& contents = std::get<0>(files);
  const std::string digest = digest_of(contents);

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
    std::vector<std::string> names;
    for (const auto& file : contents) {
      const std::string dest = stage + "/" + file.rel;
      const auto slash = dest.rfind('/');
      if (slash != std::string::npos && slash > stage.size()) make_private_dirs(dest.substr(0, slash));
      write_file(dest, file.bytes, file.executable ? 0755 : 0644);
      names.push_back(file.rel);
    }
    write_file(stage + "/.sha256", digest + "\n");
    nlohmann::json meta{{"name", m.name},        {"version", m.version},
                        {"description", m.description}, {"sha256", digest},
                        {"files", names}};
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
  // The project store is <project>/.murmur/artifacts: `mur install` without -g fills the one of
  // the directory it runs in, so the Fix names that directory.
  std::string project = roots.project;
  const std::string tail = "/.murmur/artifacts";
  if (project.size() >= tail.size() && project.compare(project.size() - tail.size(), tail.size(), tail) == 0)
    project.resize(project.size() - tail.size());
  return ResolveMiss{"not installed at this version (looked in " + roots.project + " and " +
                       roots.global + ")",
                     "install it: mur install -g <capsule folder> (the global store), or run mur install <capsule folder> "
                     "in " + (project.empty() ? std::string(".") : project) + " (its project store)"};
}

} // namespace mur
