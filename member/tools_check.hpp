// tools_check.hpp — a capsule's tool servers started once, the way a member starts them, to list
// their tools before any task needs them (`mur doctor`).
//
// Invariant: the start is member/tools_start's own (the same resolution of command[0], the same
// environment, the same `allow` and 30 s bound), so the tools listed are the ones a session would
// offer and a refusal is the one a session would give (E-TOOL-001 with its Fix). The servers run
// in a directory of their own under $TMPDIR, removed afterwards, under a Landlock plan of their
// own (that directory, the capsule read-only, $MURMUR_HOME hidden) — not a member's, which also
// hides the formation's directories: nothing is written where the capsule or its project lives;
// every server has ended when this returns.
// Rule: docs/spec/choices.md §Tool servers.
#pragma once

#include "capsule/manifest.hpp"
#include "member/program_env.hpp"
#include "messages/wire/own_tools.hpp"

#include <vector>

namespace mur {

// The tools of every server `manifest.tools` declares, server by server (none declared: none).
// Throws mur::Failure (E-TOOL-001, or E-RUN-007 when no directory can be made for them).
std::vector<OwnTool> list_capsule_tools(const Manifest& manifest, const EnvRead& env);

} // namespace mur
