// doctor_probes.hpp — what `mur doctor` checks beyond admission unless told `--no-probe`: that
// each http member's model server answers and serves the model named, and that each process
// member's program resolves — so doctor does not pass what the first task would trip over.
//
// Invariant: probes are bounded: every http probe is one `GET {endpoint}/models` sent at the
// same time as the others (one libcurl pool), each given `timeout` (2 s), so doctor waits at most
// about that long however many members there are; a key is sent only when the variable
// `inference.api_key` names is set, only in the Authorization header, and never printed. A
// failure is reported with the code the launch (or the first turn) would give: E-MOD-001 no
// server, E-MOD-002 no answer in time, E-MOD-010 the key refused, E-MOD-011 the model is not
// among those listed (they are named) or GET /models is not a model list, E-HAR-001 a program
// that does not resolve (capsule/harness_program.hpp, the PATH mur runs with). The first
// failure in the capsules' order is the one reported. Members on other hosts are not probed
// here (their host runs them).
// Rule: mur doctor checks that each http member's endpoint answers /models and names the model,
// and that each process member's command resolves; --no-probe skips it for offline use.
#pragma once

#include "capsule/manifest.hpp"
#include "messages/vocabulary/failure.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct ProbeTarget {
  std::string who;          // "member 'lead' (lead@1.0.0)" or "capsule lead@1.0.0"
  const Manifest* manifest; // its folder: the installed copy (or the folder doctor was given)
};

struct ProbeResult {
  std::vector<std::string> lines;  // one per probe that passed, e.g. "member 'lead': llama3.2 at http://…/v1"
  std::optional<Failure> failure;  // the first that failed, in the targets' order
};

inline constexpr std::chrono::milliseconds probe_timeout{2000};

ProbeResult probe_members(const std::vector<ProbeTarget>& targets,
                          std::chrono::milliseconds timeout = probe_timeout);

} // namespace mur
