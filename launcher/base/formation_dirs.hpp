// formation_dirs.hpp — `$MURMUR_HOME/formations/<frm_id>/`: the formation's marker, its peers'
// directories, and the retention pass that removes old ones.
//
// Invariant: `formations/` and `<frm_id>/` are owner-only (0700); the marker `formation.json`
// (0600: canonical project_dir, launcher_pid, launcher_start) is written whole (temporary file
// renamed) before any peer directory exists, so a formation directory is never half-made. A
// peer's directory is one non-recursive mkdir at 0700: anything already at that path fails it.
// Retention removes only marked formation directories of this project, older than the current
// one, not live, beyond the entry's trace.retain — and never touches anything else.
// Rule: each peer has a private directory that stays after the launch; the entry's trace.retain
// prunes old ones (docs/spec/formation.md §Member directories, §Retention).
#pragma once

#include "capsule/manifest.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mur {

std::string formations_root();                              // $MURMUR_HOME/formations
std::string formation_dir(const std::string& formation_id); // …/<frm_id>

// Makes formations/<frm_id>/ (0700) and writes its marker. Throws Failure (E-RUN-045).
void make_formation_dir(const std::string& formation_id, const std::string& project_dir, long launcher_pid,
                        const std::string& launcher_start);

// mkdir(…/<frm_id>/<member>, 0700), non-recursive. The directory, or a reason it could not be made.
struct PeerDir {
  std::string path;
  std::string refusal; // "" when made
};
PeerDir make_peer_dir(const std::string& formation_id, const std::string& member);
// A restarted peer's directory (roster `restart:`): the one made at launch, kept with what its
// earlier session left, if it is still a directory (not a link) of ours with mode 0700.
PeerDir reuse_peer_dir(const std::string& formation_id, const std::string& member);

// The retention pass of docs/spec/formation.md §Retention. Returns the `retention: removed …`
// lines.
std::vector<std::string> apply_retention(const Retention& policy, const std::string& current_formation,
                                         const std::string& project_dir);

} // namespace mur
