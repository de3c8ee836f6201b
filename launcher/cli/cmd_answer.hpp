// cmd_answer.hpp — `mur answer TARGET "TEXT" [--json]`: answers the question a task waits on.
//
// Invariant: TARGET is a task id held by a live session mur started (found as `mur cancel`
// finds one), or `frm_…`/`ses_…`/a door URL whose one task waiting for input is meant (several:
// E-ANS-002 lists them); the answer is A2A SendMessage on that task with the operator's credential, and is
// sent only when the task waits for input (TASK_STATE_INPUT_REQUIRED): the door itself refuses it
// otherwise. Prints `<task id>  answered: <question>` (or the JSON); exit 0 once the answer was
// taken. E-ANS-001: no such task; E-ANS-002: the task does not wait for input; E-ANS-003: the
// door refused or could not be reached.
// Rule: the operator answers a member's question with mur answer TASK_ID "text" (docs/ask-operator.md).
#pragma once

#include <string>

namespace mur {

int cmd_answer(const std::string& target, const std::string& text, bool as_json);

} // namespace mur
