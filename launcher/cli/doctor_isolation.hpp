// doctor_isolation.hpp — the Isolation part of `mur doctor`: what sealing this machine gives
// each member's programs and tool servers, found by the probe (os/isolation_probe.hpp), and
// what each capsule of the report will get of it.
//
// Invariant: a layer is marked present (✓) only when the probe put it in place here; a layer
// mur does not build yet is marked absent, never left out; each capsule that runs programs is
// named with the HOME they get. Nothing here decides; it reports.
// Rule: mur doctor says what isolation this machine gives and what a capsule will get
// (docs/isolation.md §What doctor says).
#pragma once

#include "capsule/manifest.hpp"
#include "os/isolation_probe.hpp"

#include <nlohmann/json_fwd.hpp>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace mur {

// (who, its manifest) for each capsule the report is about.
using DoctorCapsules = std::vector<std::pair<std::string, const Manifest*>>;

void print_isolation(const IsolationProbe& probe, const DoctorCapsules& capsules, std::ostream& out);
nlohmann::json isolation_json(const IsolationProbe& probe, const DoctorCapsules& capsules);

} // namespace mur
