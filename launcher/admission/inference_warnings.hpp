// inference_warnings.hpp — what `mur doctor` says about a capsule's model before a launch:
// the things admission accepts but a launch would then trip over.
//
// Invariant: doctor never passes silently what the launch would trip over. An `${ENV}` the
// capsule reads when it starts (its api_key) that is unset in doctor's own environment — the
// environment members inherit — is W-MOD-001; the message never holds a variable's value. (A
// `${ENV}` of `inference.env` is read when a turn starts; unset, the program gets it empty.) A
// `${ENV}` of a tool server's `env` or `headers` that is unset is W-TOOL-001: the server would
// get it empty.
// Rule (docs/spec/choices.md §Real models): `mur doctor` warns, with a Fix, when a `${ENV}` a
// member needs is unset; it never passes what the launch then refuses.
#pragma once

#include "capsule/manifest.hpp"
#include "launcher/admission/admission.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mur {

// Reads one environment variable (nullopt: unset). Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_env_lookup();

// `who` names the capsule in messages, e.g. "member 'coder' (coder@1.0.0)".
std::vector<Warning> inference_warnings(const Manifest& m, const std::string& who, const EnvLookup& env);

} // namespace mur
