// cmd_trace.hpp — `mur trace show frm_…|ses_… [--json]`: a formation's members, their sessions
// and endings, and every member call `caller → callee status duration`, read from the members'
// trace.jsonl files (or one session's).
//
// Invariant: read-only; what it prints comes from the traces, which hold no token. A formation
// with no session found is E-TRC-002; a target that is no id is E-TRC-001.
// Seed: "every member carries the same formation_id … Each member's trace names it."
#pragma once

#include <string>

namespace mur {

int cmd_trace_show(const std::string& target, bool json);

} // namespace mur
