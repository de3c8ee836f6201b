// tools_start.hpp — a member's own tool servers, started once when its session starts.
//
// Invariant: a capsule that declares no `tools` gets a null port and no tools, and nothing is
// started. Otherwise every server's program is resolved as an agent program's is (a relative path
// is a file of the installed capsule), handed the environment of member/program_env.hpp, run in
// the member's program directory under the same isolation (a `url` server is only connected to),
// and listed before the member serves:
// a server that cannot start or list its tools fails the member's start (E-TOOL-001 with a Fix),
// so no task meets the surprise.
// Rule: docs/spec/choices.md §Tool servers.
#pragma once

#include "actors/ports.hpp"
#include "capsule/manifest.hpp"
#include "http/curl_pool.hpp"
#include "member/program_dir.hpp"
#include "member/program_env.hpp"

#include <caf/fwd.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mur {

struct StartedTools {
  tool_port port;
  std::vector<OwnTool> tools;
};

// Throws mur::Failure E-TOOL-001 (a server did not start or list its tools in time). A server
// named by `url` is reached through `pool` (http/mcp_http_transport.hpp), its headers' `${NAME}`s
// filled in from `env` and every header value a secret of its error texts.
StartedTools start_tools(caf::actor_system& sys, const Manifest& manifest, const EnvRead& env,
                         const std::string& workdir, const ProgramPlace& programs, const trace_port& trace,
                         const std::shared_ptr<CurlPool>& pool);

} // namespace mur
