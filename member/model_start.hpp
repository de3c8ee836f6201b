// model_start.hpp — the model port a member starts with, and what it reads from the member's
// world to start it: the system prompt file, the API key's environment variable.
//
// Invariant: the key is read once, here, from the member's own environment (inherited from the
// `mur run` that started it), straight into an ApiKey; it is never copied into a message, a
// trace, the running record or an error. A non-loopback endpoint without its key refuses to
// start (E-MOD-003); a loopback one starts without a key and says so on stderr.
// Rule (docs/spec/choices.md §Real models): `api_key` is only `${ENV_NAME}`, read from the
// member's environment when it starts, and optional for a loopback endpoint.
#pragma once

#include "member/program_dir.hpp"
#include "member/program_env.hpp"

#include "actors/ports.hpp"
#include "capsule/manifest.hpp"

#include <caf/fwd.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mur {

class CurlPool;

struct StartedModel {
  model_port port;
  std::string system_prompt; // the capsule's own: inference.system_prompt or its file's text
};

// Throws mur::Failure (E-MOD-003 no key for a remote endpoint; E-MAN-002 an unreadable prompt file).
// `workdir` is the member's working directory; `program` is where its agent program runs
// (program_dir_for(workdir, …), worked out once by the caller; used for `transport: process`).
StartedModel start_model(caf::actor_system& sys, const Manifest& manifest, const std::shared_ptr<CurlPool>& pool,
                         const EnvRead& env, const ProgramPlace& programs);

} // namespace mur
