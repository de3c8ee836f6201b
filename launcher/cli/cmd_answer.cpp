#include "launcher/cli/cmd_answer.hpp"

#include "http/a2a_json.hpp"
#include "http/jsonrpc_call.hpp"
#include "launcher/base/door_target.hpp"
#include "launcher/base/task_answer.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/terminal_text.hpp"

#include <nlohmann/json.hpp>

#include <iostream>

namespace mur {

namespace {

// The one task of `door` that waits for input.
std::string asking_task(CurlPool& pool, const DoorTarget& door, const std::string& target) {
  DoorRequest list;
  list.method = DoorMethod::list_tasks;
  list.page_size = 100;
  list.filter_state = to_string(TaskState::input_required);
  const DoorReply r = reply_of(call_door(pool, door, a2a::request_json("answer-list", list)), answer_codes);
  if (r.refused() || r.rpc_code != 0)
    throw Failure("E-ANS-003", "the door of " + target + " did not list its tasks: " +
                                 (r.refused() ? to_string(r.refusal) : r.rpc_message),
                  "check the target with mur ps");
  if (r.tasks.empty())
    throw Failure("E-ANS-002", "no task of " + target + " waits for an answer", "wait for the question, or check mur ps");
  if (r.tasks.size() > 1) {
    std::string ids;
    for (const auto& t : r.tasks) ids += (ids.empty() ? "" : ", ") + t.id;
    throw Failure("E-ANS-002", std::to_string(r.tasks.size()) + " tasks of " + target + " wait for an answer: " + ids,
                  "name the one you answer: mur answer TASK_ID \"TEXT\"");
  }
  return r.tasks.front().id;
}

} // namespace

int cmd_answer(const std::string& target, const std::string& text, bool as_json) {
  CurlPool pool;
  DoorTarget door;
  std::string task_id = target;
  if (ids::is_valid(target, ids::task)) {
    door = door_holding(pool, target, "E-ANS-001");
  } else {
    door = find_door(target, answer_codes);
    task_id = asking_task(pool, door, target);
  }
  DoorRequest get;
  get.method = DoorMethod::get_task;
  get.task_id = task_id;
  const DoorReply asked = reply_of(call_door(pool, door, a2a::request_json("answer-get", get)), answer_codes);
  const std::string question = asked.ok() ? asked.task.status_text : "";
  const TaskView answered = answer_task(pool, door, task_id, text, question);
  if (as_json)
    std::cout << nlohmann::json{{"task_id", task_id}, {"answered", question}, {"state", state_word(answered.state)}}.dump()
              << std::endl;
  else
    std::cout << terminal_safe_for(1, task_id + "  answered: " + question) << std::endl;
  return 0;
}

} // namespace mur
