// cancel_report.hpp — what a canceled task says it undid: the tasks canceled below it and the
// callees that did not confirm.
//
// Invariant: one entry per member, in the order the confirmations came (each canceled callee
// followed by what it canceled in turn), then the callees whose confirmation never came; at most
// max_no_answer_below entries. Only `canceled` and `unconfirmed` outcomes are listed: a call
// whose callee's task had ended, or that held no task, undid nothing.
// Rule: the answer to the canceller lists what was canceled below it, and a callee that does
// not confirm within the bound is named (docs/cancel.md §Confirmation).
#pragma once

#include "messages/wire/member_call.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct CancelReport {
  std::vector<NoAnswer> below;          // the task's no-answer list: canceled / unconfirmed
  std::vector<std::string> unconfirmed; // "coder (no answer within 1500 ms)", for its status text
};

// `silent`: the callees whose confirmation did not come within `waited_ms`.
CancelReport cancel_report(const std::vector<CallCanceled>& undone, const std::vector<std::string>& silent,
                           std::int64_t waited_ms);

} // namespace mur
