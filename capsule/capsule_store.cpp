#include "capsule/capsule_store.hpp"
#include "messages/vocabulary/nearest_word.hpp"

#include "capsule/murmur_home.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/sha256.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace mur {
namespace {

constexpr std::size_t max_record_file_bytes = 16u << 20; // murmur.yaml, .sha256: read whole

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
  if (static_cast<std::size_t>(st.st_size) > max_record_file_bytes) {
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

// What an install copies: every regular file under the folder, in the digest's order. The
// bounds fit an agent program shipped with its node_modules or virtualenv.

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
// `exclude` (install.exclude) leaves paths out of an install; a stored copy is walked whole.
std::variant<std::vector<CapsuleFile>, FilesRefusal> walk_capsule_files(const std::string& dir, bool stored,
                                                                        const std::vector<std::string>& exclude = {}) {
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return FilesRefusal{"E-INS-001", dir + " cannot be read (" + ec.message() + ")", "check its permissions"};
  std::vector<CapsuleFile> out;
  std::uint64_t total = 0;
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
      if (skipped_name(name) || (!stored && install_excludes(exclude, rel))) continue;
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
        return FilesRefusal{"E-INS-001", "the folder holds more than 100000 files",
                            "keep only what the capsule needs in its folder (install.exclude leaves paths out)"};
      total += static_cast<std::uint64_t>(st.st_size);
      if (total > max_capsule_total_bytes)
        return FilesRefusal{"E-INS-001", "the folder's files add up to more than 1 GiB",
                            "keep only what the capsule needs in its folder (install.exclude leaves paths out)"};
      out.push_back(CapsuleFile{rel, source, static_cast<std::uint64_t>(st.st_size), (st.st_mode & 0111) != 0});
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
  auto walked = walk_capsule_files(dir, stored, m.install_exclude);
  if (auto* files = std::get_if<std::vector<CapsuleFile>>(&walked))
    for (const auto& named : m.files())
      if (std::none_of(files->begin(), files->end(), [&](const CapsuleFile& f) { return f.rel == named; }))
        return FilesRefusal{"E-INS-001", named + " is missing", "restore it, or correct murmur.yaml"};
  return walked;
}

// The digest of `files`, read in pieces (never a whole file in memory); with `copy_to`, each file
// is written under that folder in the same pass (hashed while copied). A file that cannot be read,
// or whose length is not the one the walk saw, is a refusal: it changed meanwhile.
std::variant<std::string, FilesRefusal> digest_files(const std::vector<CapsuleFile>& files,
                                                     const std::string* copy_to = nullptr) {
  CapsuleDigest digest;
  std::vector<char> buf(1u << 20);
  for (const auto& f : files) {
    digest.begin_file(f.rel, f.size);
    std::ifstream in(f.source, std::ios::binary);
    if (!in)
      return FilesRefusal{"E-INS-001", f.rel + " cannot be read (" + std::strerror(errno) + ")",
                          "make every file in the capsule folder readable"};
    std::ofstream out;
    std::string dest;
    if (copy_to) {
      dest = *copy_to + "/" + f.rel;
      const auto slash = dest.rfind('/');
      if (slash > copy_to->size()) make_private_dirs(dest.substr(0, slash));
      out.open(dest, std::ios::binary | std::ios::trunc);
    }
    std::uint64_t read_so_far = 0;
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      const auto got = static_cast<std::size_t>(in.gcount());
      if (got == 0) break;
      read_so_far += got;
      if (read_so_far > f.size) break;
      digest.update(buf.data(), got);
      if (copy_to) out.write(buf.data(), static_cast<std::streamsize>(got));
    }
    if (in.bad())
      return FilesRefusal{"E-INS-001", f.rel + " cannot be read", "make every file in the capsule folder readable"};
    if (read_so_far != f.size)
      return FilesRefusal{"E-INS-001", f.rel + " changed while it was read", "run the command again"};
    if (copy_to) {
      out.close();
      if (!out) throw Failure("E-INS-003", "cannot write " + dest, "check the store's permissions and free space");
      ::chmod(dest.c_str(), f.executable ? 0755 : 0644);
    }
  }
  return digest.hex();
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
  auto digest = digest_files(std::get<0>(files));
  if (auto* refusal = std::get_if<FilesRefusal>(&digest)) {
    c.problem = refusal->why;
    return c;
  }
  if (std::get<std::string>(digest) != c.sha256) {
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

std::vector<CapsuleFile> capsule_folder_files(const std::string& dir) {
  const Manifest m = load_manifest_dir(dir);
  auto files = read_capsule_files(dir, m, false);
  if (auto* refusal = std::get_if<FilesRefusal>(&files)) throw Failure(refusal->code, dir + ": " + refusal->why, refusal->fix);
  return std::get<0>(std::move(files));
}

std::string capsule_folder_digest(const std::string& dir) {
  auto hashed = digest_files(capsule_folder_files(dir));
  if (auto* refusal = std::get_if<FilesRefusal>(&hashed)) throw Failure(refusal->code, dir + ": " + refusal->why, refusal->fix);
  return std::get<std::string>(hashed);
}

InstallOutcome install_capsule(const std::string& source_dir, const std::string& store_root,
                               StoreScope scope, bool force) {
  const auto started = std::chrono::steady_clock::now();
  struct stat st {};
  if (::stat(source_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Failure("E-INS-001", source_dir + " is not a directory",
                  "give the folder that holds the capsule's murmur.yaml");
  Manifest m = load_manifest_dir(source_dir);
  auto files = read_capsule_files(source_dir, m, false);
  if (auto* refusal = std::get_if<FilesRefusal>(&files))
    throw Failure(refusal->code, source_dir + ": " + refusal->why, refusal->fix);
  const auto& contents = std::get<0>(files);

  const std::string parent = store_root + "/" + m.name;
  const std::string target = parent + "/" + m.version;
  InstallOutcome outcome;
  outcome.kind = InstallOutcome::Kind::installed;
  outcome.files = contents.size();
  for (const auto& f : contents) outcome.bytes += f.size;
  auto took = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  auto refused = [&](const FilesRefusal& r) { return Failure(r.code, source_dir + ": " + r.why, r.fix); };
  // Over an installed copy: the source is hashed first (reading only), so the same bytes again
  // and other bytes without --force write nothing.
  if (fs::exists(fs::symlink_status(target))) {
    auto hashed = digest_files(contents);
    if (auto* refusal = std::get_if<FilesRefusal>(&hashed)) throw refused(*refusal);
    if (recorded_digest(target) == std::get<std::string>(hashed)) {
      StoredCapsule c = inspect_stored(target, m.name, m.version, scope);
      if (c.problem.empty()) {
        outcome.capsule = c;
        outcome.kind = InstallOutcome::Kind::unchanged;
        outcome.seconds = took();
        return outcome;
      }
    }
    if (!force)
      throw Failure("E-INS-002",
                    m.name + "@" + m.version + " is already installed in the " + to_string(scope) +
                      " store with other bytes",
                    "raise the version in murmur.yaml, or pass --force to replace the installed copy (in a roster, "
                    "{name: …, path: <capsule folder>} installs each edit by itself)");
    outcome.kind = InstallOutcome::Kind::replaced;
  }
  make_private_dirs(parent);
  // One pass over the source: each file is copied into the staging folder and hashed as it is.
  const std::string stage = parent + "/.tmp-" + ids::uuid7_hex();
  try {
    make_private_dirs(stage);
    auto hashed = digest_files(contents, &stage);
    if (auto* refusal = std::get_if<FilesRefusal>(&hashed)) throw refused(*refusal);
    const std::string digest = std::get<std::string>(hashed);
    std::vector<std::string> names;
    for (const auto& file : contents) names.push_back(file.rel);
    write_file(stage + "/.sha256", digest + "\n");
    nlohmann::json meta{{"name", m.name},        {"version", m.version},
                        {"description", m.description}, {"sha256", digest},
                        {"files", names}};
    write_file(stage + "/.meta.json", meta.dump(2) + "\n");

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
    outcome.capsule = StoredCapsule{m.name, m.version, digest, target, scope, m.description, {}};
    outcome.seconds = took();
  } catch (...) {
    remove_quietly(stage);
    std::error_code ec;
    fs::remove(parent, ec); // only when empty: a first install that failed leaves nothing
    throw;
  }
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

namespace {

// 1.2.0 before 1.10.0: dot-separated parts compared as numbers where both are digits.
bool older_version(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::size_t ai = std::min(a.find('.', i), a.size()), bj = std::min(b.find('.', j), b.size());
    const std::string x = a.substr(i, ai - i), y = b.substr(j, bj - j);
    const bool nx = !x.empty() && x.find_first_not_of("0123456789") == std::string::npos;
    const bool ny = !y.empty() && y.find_first_not_of("0123456789") == std::string::npos;
    if (nx && ny && x.size() != y.size()) return x.size() < y.size();
    if (x != y) return x < y;
    i = ai + 1, j = bj + 1;
  }
  return a.size() - std::min(a.size(), i) < b.size() - std::min(b.size(), j);
}

} // namespace

std::vector<std::pair<std::string, StoreScope>> installed_versions(const StoreRoots& roots, const std::string& name) {
  std::vector<std::pair<std::string, StoreScope>> out;
  for (auto [root, scope] : {std::pair{roots.project, StoreScope::project},
                             std::pair{roots.global, StoreScope::global}}) {
    std::error_code ec;
    std::vector<std::string> versions;
    for (auto it = fs::directory_iterator(root + "/" + name, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string v = it->path().filename().string();
      if (!v.empty() && v[0] != '.' && it->is_directory(ec)) versions.push_back(v);
    }
    std::sort(versions.begin(), versions.end(), older_version);
    for (auto& v : versions) out.emplace_back(std::move(v), scope);
  }
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
  const std::string install = "mur install -g <capsule folder> (the global store), or run mur install <capsule folder> "
                              "in " + (project.empty() ? std::string(".") : project) + " (its project store)";
  const auto installed = installed_versions(roots, name);
  if (installed.empty()) {
    std::vector<std::string> names; // a misspelt name: the installed capsule it most likely meant
    for (const auto& [root, scope] : {std::pair{roots.project, StoreScope::project}, std::pair{roots.global, StoreScope::global}})
      for (const auto& c : list_store(root, scope)) names.push_back(c.name);
    const std::string meant = nearest_word(name, names);
    if (!meant.empty())
      return ResolveMiss{"no version of " + name + " is installed (looked in " + roots.project + " and " + roots.global +
                           "); did you mean `" + meant + "`?",
                         "name the installed capsule (capsule: " + meant + "), or install " + name + ": " + install};
    return ResolveMiss{"not installed at this version, and no version of " + name + " is installed (looked in " +
                         roots.project + " and " + roots.global + ")",
                       "install it: " + install};
  }
  std::string listed, newest = installed.front().first;
  for (const auto& [v, scope] : installed)
    if (older_version(newest, v)) newest = v;
  for (const auto& [v, scope] : installed) listed += (listed.empty() ? "" : ", ") + v + " (" + to_string(scope) + ")";
  return ResolveMiss{"not installed at this version; the installed versions of " + name + " are " + listed +
                       " (looked in " + roots.project + " and " + roots.global + ")",
                     "use an installed version (" + name + "@" + newest + "), or install " + name + "@" +
                       version + ": " + install};
}

} // namespace mur
