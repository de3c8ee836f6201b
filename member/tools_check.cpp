// tools_check.cpp — see tools_check.hpp.
#include "member/tools_check.hpp"

#include "actors/trace_recorder.hpp"
#include "member/tools_start.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/wire/register_messages.hpp"

#include <caf/all.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdlib.h>

namespace mur {

namespace {

// A directory of its own for the servers, removed with this.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mur-doctor-tools-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw Failure("E-RUN-007", "no directory could be made for the tool servers under " + pattern.substr(0, pattern.size() - 7),
                    "set TMPDIR to a directory you may write to");
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

} // namespace

std::vector<OwnTool> list_capsule_tools(const Manifest& m, const EnvRead& env) {
  if (m.tools.empty()) return {};
  ScratchDir scratch;
  ProgramPlace place;
  place.dir.dir = scratch.path;
  try {
    place.isolation = program_isolation(m, scratch.path, place.dir, env);
  } catch (const std::exception& e) { // a path that cannot be resolved
    throw Failure("E-TOOL-001", "the tool servers' isolation could not be worked out: " + std::string(e.what()),
                  "check that $TMPDIR and $MURMUR_HOME exist and can be read");
  }
  std::vector<OwnTool> tools;
  const auto pool = std::make_shared<CurlPool>(); // outlives the system: a url server's session is ended through it
  {
    caf::actor_system_config cfg;
    register_message_types(cfg);
    cfg.set("scheduler.max-threads", 1);
    caf::actor_system sys{cfg};
    const trace_port trace = spawn_trace_recorder(sys, "doctor");
    try {
      StartedTools started = start_tools(sys, m, env, scratch.path, place, trace, pool);
      tools = std::move(started.tools);
      caf::anon_send_exit(started.port, caf::exit_reason::user_shutdown);
    } catch (...) { // start_tools has ended its hub
      caf::anon_send_exit(trace, caf::exit_reason::user_shutdown);
      throw;
    }
    caf::anon_send_exit(trace, caf::exit_reason::user_shutdown);
  } // the system waits for the hub and its transports: every server has ended
  return tools;
}

} // namespace mur
