#include "launcher/cli/cmd_cancel.hpp"

#include "http/a2a_json.hpp"
#include "http/jsonrpc_call.hpp"
#include "launcher/base/cli_words.hpp"
#include "messages/vocabulary/cancel_confirm.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/vocabulary/terminal_text.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <vector>

namespace mur {
namespace {

using json = nlohmann::json;

void refuse_on(const DoorReply& r) {
  if (r.refused())
    throw Failure("E-CAN-002", "the door refused the cancel: " + to_string(r.refusal) + ": " + r.refusal_message,
                  "cancel a task of a session you started (its running record holds the operator credential)");
}

// The tasks of `door` that have not ended (every page of ListTasks).
std::vector<std::string> live_tasks(CurlPool& pool, const DoorTarget& door) {
  std::vector<std::string> out;
  DoorRequest list;
  list.method = DoorMethod::list_tasks;
  list.page_size = 100;
  for (int page = 0; page < 100; ++page) {
    DoorReply r = reply_of(call_door(pool, door, a2a::request_json("cancel-list", list)), cancel_codes);
    refuse_on(r);
    if (r.rpc_code != 0)
      throw Failure("E-CAN-002", "the door answered ListTasks with error " + std::to_string(r.rpc_code) + ": " + r.rpc_message,
                    "check that TARGET is a door mur started: mur ps");
    for (const auto& t : r.tasks)
      if (!is_terminal(t.state)) out.push_back(t.id);
    if (r.next_page_token.empty()) break;
    list.page_token = r.next_page_token;
  }
  return out;
}

} // namespace

DoorReply cancel_task_at(CurlPool& pool, const DoorTarget& door, const std::string& task_id, std::int64_t within_ms,
                         const TargetCodes& codes) {
  DoorRequest cancel;
  cancel.method = DoorMethod::cancel_task;
  cancel.task_id = task_id;
  cancel.deadline_ms = within_ms;
  return reply_of(call_door(pool, door, a2a::request_json("cancel-1", cancel)), codes);
}

std::string canceled_line(const TaskView& task) {
  return task.id + "  " + state_word(task.state) + "  " + task.status_text;
}

int cmd_cancel(const std::string& target, const std::string& task_id, bool as_json, std::int64_t within_ms) {
  if (within_ms < min_confirm_ms || within_ms > max_confirm_ms)
    throw Failure("E-CAN-004", "--within must be from 250 to 60000 ms", "leave it out for 5000 ms");
  if (!task_id.empty() && !ids::is_valid(task_id, ids::task))
    throw Failure("E-CAN-001", "TASK_ID must be a task id (tsk_…)", "read the task ids with mur ps, or mur trace show");
  CurlPool pool;
  DoorTarget door;
  std::vector<std::string> tasks;
  if (ids::is_valid(target, ids::task)) {
    door = door_holding(pool, target, "E-CAN-001");
    tasks = {target};
  } else {
    door = find_door(target, cancel_codes);
    tasks = task_id.empty() ? live_tasks(pool, door) : std::vector<std::string>{task_id};
  }
  json out = json::array();
  int code = 0;
  for (const auto& id : tasks) {
    DoorReply r = cancel_task_at(pool, door, id, within_ms);
    refuse_on(r);
    if (r.rpc_code == rpc::task_not_found)
      throw Failure("E-CAN-001", "the door holds no task " + id, "read the task ids with mur ps, or mur trace show");
    if (r.rpc_code != 0) { // ended already (or another error): named, and the others are still canceled
      code = 1;
      const Failure f("E-CAN-003", "task " + id + " was not canceled: " + r.rpc_message,
                      "a task that has ended cannot be canceled; mur trace show tells how it ended");
      if (as_json) out.push_back(json{{"task_id", id}, {"error", {{"code", f.code()}, {"message", f.message()}, {"fix", f.fix()}}}});
      else print_failure(f, false, std::cout, std::cerr);
      continue;
    }
    if (as_json) {
      json below = json::array();
      for (const auto& n : r.task.no_answer_below) below.push_back({{"member", n.member}, {"status", n.status}});
      out.push_back(json{{"task_id", r.task.id}, {"state", state_word(r.task.state)}, {"status", r.task.status_text},
                         {"below", below}});
    } else {
      std::cout << terminal_safe_for(1, canceled_line(r.task)) << std::endl;
    }
  }
  if (as_json) std::cout << out.dump() << std::endl;
  else if (tasks.empty()) std::cerr << "no task of " << target << " is running; nothing was canceled\n";
  return code;
}

} // namespace mur
