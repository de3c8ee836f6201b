// source_drift.hpp — W-ROS-007: the capsule a member runs is an installed copy, and the project
// holds a source folder of that very capsule and version whose bytes are other ones: its edits
// are not what runs.
//
// Invariant: only folders the roster's directory holds are looked at — each direct subfolder of
// the project directory and of its `capsules/` folder that has a murmur.yaml naming a member's
// capsule and version (one that does not parse is passed over: it is no member's source); each
// such folder is hashed as install would hash it, and warned about when that differs from the
// sha256 the member was admitted with. Members named by `path` are installed from their folder
// and never warned about. Nothing is written.
// Rule: mur doctor warns when an installed capsule differs from a source folder the roster's
// directory holds for it, with a Fix that makes them agree.
#pragma once

#include "launcher/admission/admission.hpp"

#include <vector>

namespace mur {

std::vector<Warning> source_drift_warnings(const Admission& a);

} // namespace mur
