// task_answer.hpp — the operator's answer to the question a task waits on, sent to its door.
//
// Invariant: one A2A SendMessage on the task (message.taskId, the text, `murmur.question` when
// the question answered is known, returnImmediately), with the door's credential (the operator
// token of its running record); the door takes it only while the task waits for input and,
// when a question is named, still shows that question. Not taken is a Failure: E-ANS-002 the
// task does not wait for an answer to this question, E-ANS-003 the door refused it or could
// not be reached. `mur answer` and the view page's Answer button both send through it.
// Rule: the operator answers a member's question with mur answer TASK_ID "text" (docs/ask-operator.md).
#pragma once

#include "http/curl_pool.hpp"
#include "launcher/base/door_target.hpp"

#include <string>

namespace mur {

inline constexpr TargetCodes answer_codes{"E-ANS-001", "E-ANS-003", "see mur answer --help"};

// Sends the answer; the task as the door returned it once the answer was taken.
TaskView answer_task(CurlPool& pool, const DoorTarget& door, const std::string& task_id, const std::string& text,
                     const std::string& question);

} // namespace mur
