#include "launcher/base/task_answer.hpp"

#include "http/a2a_json.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"

namespace mur {

TaskView answer_task(CurlPool& pool, const DoorTarget& door, const std::string& task_id, const std::string& text,
                     const std::string& question) {
  DoorRequest answer;
  answer.method = DoorMethod::send_message;
  answer.task_id = task_id;
  answer.text = text;
  answer.question = question; // refused if the task asks something else by the time it arrives
  answer.return_immediately = true;
  const DoorReply r = reply_of(call_door(pool, door, a2a::request_json("answer-1", answer)), answer_codes);
  if (r.refused())
    throw Failure("E-ANS-003", "the door refused the answer: " + to_string(r.refusal) + ": " + r.refusal_message,
                  "answer a task of a session you started (its running record holds the operator credential)");
  if (r.rpc_code == rpc::unsupported_operation)
    throw Failure("E-ANS-002", "task " + task_id + " does not wait for an answer to this question: " + r.rpc_message,
                  "answer while the task is input-required (the entry's output, or GetTask at its door, shows the question)");
  if (r.rpc_code != 0)
    throw Failure("E-ANS-003", "the door answered error " + std::to_string(r.rpc_code) + ": " + r.rpc_message,
                  "check the task id with mur trace show");
  return r.task;
}

} // namespace mur
