// callee_context.hpp — the contextId a member's call carries to its callee.
//
// Invariant: one stable contextId per (caller's context, callee): every call a member makes to
// the same callee from tasks in the same context carries the same id, so a threaded callee
// continues its conversation across the caller's turns; calls from another context, or to
// another callee, carry another id. The id is `ctx_` and 32 lowercase hex (the first half of the
// SHA-256 of the caller's context and the callee's name), shaped like a minted one but not
// time-ordered. The callee's door keys its conversations by caller as well
// (actors/conversation_store.hpp), so two callers never share one even with equal ids.
// Rule: members a threaded member calls get their own contexts per caller context
// (docs/manifest.md §Conversations (`lifecycle.conversation`)).
#pragma once

#include <string>

namespace mur {

std::string callee_context(const std::string& caller_context, const std::string& callee);

} // namespace mur
