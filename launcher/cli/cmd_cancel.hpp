// cmd_cancel.hpp — `mur cancel TARGET [TASK_ID] [--json] [--within MS]`: cancels running tasks,
// and each cancels the calls it has out, down the whole tree.
//
// Invariant: TARGET is a task id (`tsk_…`: the live session whose door knows it, asked with each
// record's operator token), or `frm_…`/`ses_…`/a door URL (door_target.hpp) whose every task
// that has not ended is canceled — or only TASK_ID when it is given. Each cancel is A2A
// CancelTask with the cancel extension's `confirmWithinMs` (default 5000): the door answers
// once the tree below the task has confirmed, or names who did not. Prints one line per task
// (its id, `canceled`, and what was canceled below it); exit 0 when every named task was
// canceled, 1 when one had ended already (E-CAN-003 names it), E-CAN-001 for no such target.
// Rule: cancel follows the tree (docs/cancel.md).
#pragma once

#include "http/curl_pool.hpp"
#include "launcher/base/door_target.hpp"

#include <cstdint>
#include <string>

namespace mur {

int cmd_cancel(const std::string& target, const std::string& task_id, bool as_json, std::int64_t within_ms);

// One CancelTask at `door`, waited for (the tree's confirmations included).
DoorReply cancel_task_at(CurlPool& pool, const DoorTarget& door, const std::string& task_id, std::int64_t within_ms,
                         const TargetCodes& codes = cancel_codes);

// "tsk_…  canceled  the task was canceled by the operator; canceled below it: worker, coder".
std::string canceled_line(const TaskView& task);

} // namespace mur
