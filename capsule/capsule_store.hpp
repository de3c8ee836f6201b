// capsule_store.hpp — the two capsule stores: `<project>/.murmur/artifacts/` and
// `$MURMUR_HOME/artifacts/`, each capsule at `<name>/<version>/`.
//
// Invariants:
// - A stored capsule holds its folder whole: every regular file under it except `.murmur/` and
//   VCS folders (`.git`, `.hg`, `.svn`) and what `install.exclude` leaves out, at most 100,000
//   files and 1 GiB (read in pieces: hashed while copied, never held whole), plus
//   `.sha256` (the digest of every path and its bytes, murmur.yaml first then by path, recorded
//   at install) and `.meta.json`. A symlink is copied as the file it points at when that file
//   is inside the folder; one that leaves the folder, dangles or names a folder is refused
//   (E-INS-004). The executable bit is kept (0755, else 0644); it is not part of the digest.
// - Install never leaves a partial capsule: it stages under a temporary name beside the target
//   and renames; a failure removes the staging directory and leaves the store as it was.
// - The same name+version with other bytes is refused unless forced (E-INS-002); the same bytes
//   again is a no-op.
// - Resolution is project store first, then global; a resolved capsule's bytes are re-hashed and
//   must equal the recorded digest — the roster binds a member to exactly those bytes.
// Rule: doctor runs admission, this store's lookup included, without launching
// (docs/spec/choices.md §Command line; docs/spec/formation.md §Admission order).
#pragma once

#include "capsule/manifest.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mur {

enum class StoreScope { project, global };
const char* to_string(StoreScope s);

struct StoreRoots {
  std::string project; // <project>/.murmur/artifacts
  std::string global;  // $MURMUR_HOME/artifacts
  static StoreRoots for_project(const std::string& project_dir);
};

struct StoredCapsule {
  std::string name;
  std::string version;
  std::string sha256;      // as recorded at install
  std::string dir;         // <store>/<name>/<version>
  StoreScope scope = StoreScope::project;
  std::string description;
  std::string problem;     // empty when intact; else why the stored bytes cannot be trusted
};

struct InstallOutcome {
  StoredCapsule capsule;
  enum class Kind { installed, replaced, unchanged } kind = Kind::installed;
  std::size_t files = 0;     // the capsule's files
  std::uint64_t bytes = 0;   // their bytes
  double seconds = 0;        // how long the install took (read, hash, copy, verify)
};

// What a capsule folder may hold at most (E-INS-001 past either).
inline constexpr std::size_t max_capsule_files = 100'000;
inline constexpr std::uint64_t max_capsule_total_bytes = std::uint64_t{1} << 30;

struct CapsuleFile {
  std::string rel;    // relative to the capsule folder, '/'-separated
  std::string source; // the file read (a symlink's target inside the folder)
  std::uint64_t size = 0;
  bool executable = false; // any x bit on the source (the copy is 0755, else 0644)
};

// The files an install of the folder `dir` takes, in install's order (murmur.yaml first):
// install.exclude and version-control folders left out, symlinks inside it followed. Throws
// Failure (E-MAN-…, E-INS-001, E-INS-004) as install_capsule would.
std::vector<CapsuleFile> capsule_folder_files(const std::string& dir);

// The sha256 an install of the folder `dir` would record, reading only (throws as
// capsule_folder_files, or E-INS-001 for a file that cannot be read).
std::string capsule_folder_digest(const std::string& dir);

// Installs the capsule folder `source_dir` into `store_root` (E-MAN-*, E-INS-001..004).
InstallOutcome install_capsule(const std::string& source_dir, const std::string& store_root,
                               StoreScope scope, bool force);

// Every capsule of one store, sorted by name then version; damaged entries carry a problem.
// A store that does not exist is empty; one that cannot be read is refused (E-INS-003).
std::vector<StoredCapsule> list_store(const std::string& store_root, StoreScope scope);

// A capsule resolved for admission: its manifest parsed from the stored bytes.
struct ResolvedCapsule {
  StoredCapsule stored;
  Manifest manifest;
};

struct ResolveMiss {
  std::string why; // a sentence for E-ROS-007
  std::string fix;
};

// The versions of `name` the stores hold (project store first, each sorted), intact or not:
// what a refusal of a version that is not installed lists.
std::vector<std::pair<std::string, StoreScope>> installed_versions(const StoreRoots& roots, const std::string& name);

// A miss (not installed at `version`) names the versions that are installed.
std::variant<ResolvedCapsule, ResolveMiss> resolve_capsule(const StoreRoots& roots,
                                                          const std::string& name,
                                                          const std::string& version);

} // namespace mur
