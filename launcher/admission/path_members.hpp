// path_members.hpp — a roster member named by its capsule folder (`{name: worker, path:
// capsules/worker}`): the edit-run loop. Admission installs the folder into the project store
// when its bytes changed, and the member is then admitted and launched as any installed one.
//
// Invariant: a path member runs exactly the bytes its folder held when admission read it — the
// folder is installed (staged and renamed, so the store never holds half a capsule) into
// `<project>/.murmur/artifacts`, the store `mur install` without -g fills, replacing an older
// copy of the same name and version; identical bytes again write nothing. The member is then
// resolved like any other (project store first), and its admitted sha256 must be the one just
// installed (E-ROS-007 otherwise), which the launch pins. A folder that cannot be installed is
// refused with install's own code (E-INS-…, E-MAN-…), naming the roster and the member.
// Rule: a member may name its capsule by path for development; mur run and mur doctor install it
// when its bytes changed, printing that they did, and use exactly what was checked.
#pragma once

#include "capsule/capsule_store.hpp"
#include "launcher/admission/roster.hpp"

#include <string>

namespace mur {

struct PathInstall {
  std::string member;       // the roster member
  std::string path;         // as the roster wrote it
  InstallOutcome outcome;   // installed (new), replaced (changed) or unchanged
};

// Installs the folder `m.path` names (relative paths: to the roster's project directory) into
// `stores.project`. Throws Failure with install's code, the message naming roster and member.
PathInstall install_path_member(const Roster& roster, const RosterMember& m, const StoreRoots& stores);

// The folder a path member names, as a path to read.
std::string path_member_folder(const Roster& roster, const RosterMember& m);

// "installed NAME@VERSION from PATH for member M (new|changed)"; "" when nothing was written.
std::string install_line(const PathInstall& p);

} // namespace mur
