// continuation.hpp — the ONE message that brings a turn's call outcomes back into the task.
//
// Invariant: every outcome appears, in arrival order, as a header line (call id, member,
// status) followed by its output fenced as `member:<name>` — always fenced, errors too. When
// answers are missing, one line names every member that gave none (with the members further
// down that gave none) and forbids presenting an answer of the model's own as theirs; each
// member that completed without answers from below it gets a line saying the stand-in parts are
// its own; a closing line says what to do next (and, for a task a member sent, offers
// end-without-answer when answers are missing).
// Rule: outcomes return into the calling task, fenced per member; a missing answer is named
// by the runtime and the model may not stand in for it
// (docs/spec/formation.md §How a member gives another work).
#pragma once

#include "messages/wire/member_call.hpp"

#include <string>
#include <vector>

namespace mur {

// Outputs are taken as given (the caller cuts them first). `sent_by_member`: the current task
// was sent by a formation member, so end-without-answer is offered when answers are missing.
std::string build_continuation(const std::vector<CallEnded>& outcomes, bool sent_by_member);

// "completed", or "<status>, with no answer from <member>".
std::string outcome_phrase(const CallEnded& outcome);

} // namespace mur
