// doctor.hpp — `mur doctor [DIR]`: admission exactly as the launcher does it, reported.
//
// Invariant: doctor runs the same `admit()` the launcher runs, so a roster doctor accepts is
// one the launcher accepts, and the refusal it shows is the one a launch would give (same
// code, same message). It starts no member and writes nothing where the capsules or the project
// live, but one thing the launch would write too: a member named by `path` is installed into
// the project store when its folder changed (launcher/admission/path_members.hpp), and said so.
// A capsule's tool servers alone are started once each, as a member would start them
// (member/tools_check.hpp), to list their tools — or give the refusal a session would give.
// Unless told --no-probe, each http member's model server is asked GET /models and each process
// member's program is resolved (launcher/cli/doctor_probes.hpp), at most about 2 s in all.
// Output: the Roster block (per member: name, capsule@version, entry, serves/refuses peers,
// authenticated/public door; the reachability line; each member's tools; warnings), then `All checks passed.`
// (exit 0), or a tally and one `Fix:` line per warning (exit 0), or the refusal with its code
// and a `Fix:` line (exit 1).
// Rule: doctor runs the launcher's admission on the installed capsules, launching no member
// (docs/spec/choices.md §Command line, §Tool servers).
#pragma once

#include <ostream>
#include <string>

namespace mur {

// as_json: one JSON object {ok, dir, checks_passed, roster?, installed?, capsule?, tools{who: [names]},
// warnings[], probed[], error?}. probing: false for --no-probe.
int run_doctor(const std::string& dir, std::ostream& out, bool as_json = false, bool probing = true);

} // namespace mur
