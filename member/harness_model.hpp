// harness_model.hpp — the model port for `inference.transport: process`: each model turn runs
// the capsule's agent program once, which calls the runtime's tools over this member's loopback
// MCP tool server (http/mcp_server.hpp on http/loopback_listener.hpp).
//
// Invariant: per turn, a new process in its own process group (os/harness_run.hpp), in the
// member's working directory, with a minimal environment (PATH, HOME, LANG, LC_ALL, TZ, USER,
// TMPDIR from the member's, then the capsule's `inference.env`) and ONE JSON object on stdin:
//   {"session": {"id": "hs_…", "mode": "new"|"resume"}, "member", "callees", "task",
//    "message", "turn", "tools": {"url": "http://127.0.0.1:P/mcp", "token": "<bearer>"}}
// and, for a threaded member whose task continues a conversation, "history": the earlier
// exchanges of the task's context as [{role, text, tool_calls?}], oldest first (the program
// keeps no state of its own between tasks: every turn is told the conversation).
// The token is fresh per turn, is accepted only while that turn's process runs, and appears
// nowhere else (not on argv, not in the environment, not in a trace). A tool call reaches the
// task whose turn it is as a ToolRequest, so it meets the same rules as any model's. The turn
// ends when the program exits: status 0 ⇒ its stdout (cut at 64 KiB) is the turn's text; a
// non-zero status or a signal ⇒ E-HAR-002 with the stderr tail; no output and no tool call for
// `turn_timeout` ⇒ the group is killed, E-HAR-003. A task that ends (or is canceled) kills its
// running turn; so does the port's own end, with the member's. Every text of the program's that
// a failure quotes (its stderr tail, the reason it could not start) goes through `secrets` — the
// values its `inference.env` read from `${ENV}` — before it is cut, so no E-HAR text holds one;
// so does its answer (stdout), which mur stores and prints: a value it was handed from `${ENV}`
// (a credential, as far as mur knows) reads `[redacted]` there too.
// Rule: docs/harness.md (`transport: process`: one program per turn, tools over MCP, what it may
// reach); its failure texts pass the redaction rule.
#pragma once

#include "actors/ports.hpp"
#include "messages/vocabulary/secret_redaction.hpp"
#include "os/harness_isolation.hpp"
#include "os/member_cgroup.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace mur {

struct HarnessSetup {
  std::string program;                                    // absolute path (capsule/harness_program.hpp)
  std::vector<std::string> args;                          // command[1..]
  std::vector<std::pair<std::string, std::string>> env;   // inference.env, ${…} already read
  std::string workdir;                                    // the member's working directory
  std::string home;                                       // the program's HOME ("": the member's own)
  MemberCgroup limits;                                    // the member's group: what its limits refused
  ResourceBounds bounds;                                  // capabilities.limits, to name one reached
  std::chrono::milliseconds turn_timeout{600000};
  IsolationPlan isolation;                                // applied to every run (os/harness_isolation.hpp)
  SecretRedaction secrets;                                // the env values read from ${…}
  std::string system_prompt;                              // the capsule's own (inference.system_prompt or its file)
};

model_port spawn_harness_model(caf::actor_system& sys, HarnessSetup setup);

} // namespace mur
