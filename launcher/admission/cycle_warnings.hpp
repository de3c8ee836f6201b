// cycle_warnings.hpp — what `mur doctor` and `mur run` warn about loops in a formation before it
// runs: calls that can go round (W-ROS-004) and delegation that can go round (W-ROS-005).
//
// Invariant: each warning names one loop, shortest first found, as a path that starts and ends
// at the same member or capsule ("lead → worker → lead"); nothing is refused — at run time a call
// to a member already on its chain is refused (messages/vocabulary/call_chain.hpp) unless the
// roster sets allow_cycles, and delegation stops at the depth limit (actors/member.hpp).
// W-ROS-004 is not given when the roster sets allow_cycles: true (the user chose loops, and
// limits.max_depth bounds them). A capsule of spawn.allow that cannot be resolved is left out.
// Rule: no loops, no runaway trees — doctor warns with a Fix when reachability has a cycle or
// spawn.allow graphs recurse (docs/errors.md §W-ROS-004 — calls can go round, §W-ROS-005 — delegation can go round).
#pragma once

#include "capsule/capsule_store.hpp"
#include "capsule/manifest.hpp"
#include "launcher/admission/admission.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mur {

// A loop of a directed graph reachable from `roots`: the path from a node back to itself, or none.
std::optional<std::vector<std::string>> find_cycle(
    const std::vector<std::string>& roots, const std::function<std::vector<std::string>(const std::string&)>& next);

// W-ROS-004 for the admitted roster's edges (none when it allows cycles).
std::optional<Warning> call_cycle_warning(const Admission& a);

// W-ROS-005 for a capsule whose spawn.allow reaches itself again through the stores; `who`
// names it in the message ("member 'lead' (lead-c@1.0.0)", "capsule lead-c@1.0.0").
std::optional<Warning> spawn_cycle_warning(const Manifest& m, const StoreRoots& stores, const std::string& who);

} // namespace mur
