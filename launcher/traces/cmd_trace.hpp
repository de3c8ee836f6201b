// cmd_trace.hpp — `mur trace show frm_…|ses_… [--json] [--full] [--follow]`: a formation's
// members, their sessions, endings and model totals, then its tasks as a tree in time order —
// each task's calls, and the callee's task under each call — read from the members' trace.jsonl
// files (or one session's).
//
// Invariant: read-only; what it prints comes from the traces, which hold no token. A formation
// with no session found is E-TRC-002; a target that is no id is E-TRC-001.
// Rule: every member's trace carries the formation id, so one id finds them all
// (docs/spec/formation.md §Stopping and listing; docs/spec/capsule.md §Trace format).
#pragma once

#include <string>

namespace mur {

// The tree of tasks and calls (launcher/traces/trace_tree.hpp); texts cut to 80 characters unless `full`.
int cmd_trace_show(const std::string& target, bool json, bool full);

// `mur trace show frm_… --follow`: every task, call and answer as it happens, one line each
// (launcher/traces/trace_follow.hpp), until the formation's launcher is gone. E-TRC-003: not a frm_ id.
int cmd_trace_follow(const std::string& formation_id);

} // namespace mur
