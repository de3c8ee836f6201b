// no_answer_ledger.hpp — which members a task is still without an answer from (`noAnswerBelow`).
//
// Invariant: the ledger holds, per member, only its latest delivered call outcome: a completed
// call that reported nothing missing below it clears the member; any other outcome replaces
// what was there. The report lists each member whose latest call did not complete, followed by
// the members further down that gave it none, then (for members that completed) the members
// below them; one entry per member, at most `max_no_answer_below`.
// Rule: the runtime itself tells the caller which member gave no answer, and which members
// deeper in the chain gave none (docs/spec/formation.md §How a member gives another work).
#pragma once

#include "messages/wire/a2a_task.hpp"
#include "messages/wire/member_call.hpp"

#include <string>
#include <vector>

namespace mur {

class NoAnswerLedger {
public:
  // Records a delivered outcome (status and below-list of `ended`) for `ended.member`.
  void record(const CallEnded& ended);

  // The task's own no-answer report, deduplicated by member, at most max_no_answer_below.
  std::vector<NoAnswer> report() const;

  bool empty() const { return entries_.empty(); }

private:
  struct Entry {
    std::string member;
    std::string status;
    std::vector<NoAnswer> below;
  };
  std::vector<Entry> entries_; // in the order members first went missing
};

} // namespace mur
