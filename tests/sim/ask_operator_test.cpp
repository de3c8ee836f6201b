// A member asks a person (messages/wire/operator_question.hpp): its task goes INPUT_REQUIRED, a
// callee's question surfaces up the chain to the entry's task, the operator's answer (SendMessage
// on the entry's task id) travels down to the member that asked, whose turn goes on with it;
// lifecycle.input_timeout_secs bounds the wait.
#include "formation_fixture.hpp"

#include "messages/vocabulary/rpc_error_codes.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

const std::string asks = "capabilities: {network: {allow: [localhost]}, ask_operator: true}\n";

// lead → a → b, and b asks the operator (its manifest lets it).
void launch_asking_chain(formation_fixture& f, const std::string& b_lifecycle = "{task_acceptance: queue, queue_depth: 1, after_task: sleep}") {
  f.launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: a, task: 'go'}}, {reply: 'lead: {{answer.a}}'}]}\n")},
            {"a", callee_yaml("a-c", "inference: {turns: [{call: {member: b, task: 'from a'}}, {reply: 'a: {{answer.b}}'}]}\n")},
            {"b", "name: b-c\nversion: 1.0.0\ninference: {turns: [{ask: 'which colour for {{task}}?'}, {reply: 'b: {{tool_results}}'}]}\n"
                  "lifecycle: " + b_lifecycle + "\nexports: {peer_tasks: {accept: true}}\n" + asks +
                  "network: {authentication: {scheme: bearer}}\n"}},
           {{"lead", {"a"}}, {"a", {"b"}}}, "start");
}

const TaskView& only_task(const std::vector<TaskView>& tasks) {
  REQUIRE(tasks.size() == 1);
  return tasks.front();
}

} // namespace

TEST_CASE_METHOD(formation_fixture, "a question from depth 2 surfaces at the entry and the operator's answer goes down",
                 "[sim][ask]") {
  launch_asking_chain(*this);
  run_for(3s);
  // Every task on the chain waits for input, showing the question and who asks.
  for (const char* m : {"b", "a", "lead"}) {
    INFO(m);
    const TaskView t = only_task(tasks_of(m));
    CHECK(t.state == TaskState::input_required);
    CHECK(t.status_text == "b asks: which colour for from a?");
  }
  CHECK(events("lead", "input_required").size() == 1);

  // A task that waits still holds its door: the entry (one task at a time) turns another away busy.
  DoorRequest other = from_operator(DoorMethod::send_message);
  other.text = "another";
  other.return_immediately = true;
  CHECK(ask<DoorReply>(door_of("lead"), other).task.busy);

  // An answer to a question the task no longer shows is refused, and answers nothing.
  DoorRequest stale = from_operator(DoorMethod::send_message);
  stale.task_id = only_task(tasks_of("lead")).id;
  stale.text = "green";
  stale.question = "b asks: which shade?";
  stale.return_immediately = true;
  CHECK(ask<DoorReply>(door_of("lead"), stale).rpc_code == rpc::unsupported_operation);
  CHECK(only_task(tasks_of("lead")).state == TaskState::input_required);

  DoorRequest answer = from_operator(DoorMethod::send_message);
  answer.task_id = only_task(tasks_of("lead")).id;
  answer.text = "blue";
  answer.question = "b asks: which colour for from a?";
  answer.return_immediately = true;
  const DoorReply r = ask<DoorReply>(door_of("lead"), answer);
  REQUIRE(r.ok());
  CHECK(r.task.state == TaskState::working);
  run_for(3s);

  CHECK(events("b", "input_answered").size() == 1);
  CHECK(events("a", "member_call_answered").at(0)["delivered"] == true);
  CHECK(events("lead", "task_end").at(0)["answer"] == "lead: a: b: The operator answered: blue");
}

TEST_CASE_METHOD(formation_fixture, "the operator may answer at the asking member's own door, and a second answer is refused", "[sim][ask]") {
  launch_asking_chain(*this);
  run_for(3s);
  DoorRequest answer = from_operator(DoorMethod::send_message);
  answer.task_id = only_task(tasks_of("b")).id; // b's own door holds the asking task
  answer.text = "red";
  answer.return_immediately = true;
  DoorRequest again = answer;
  again.text = "again";
  // Both reach the door before anything else runs: the first answers, the second finds the task working.
  const auto door = door_of("b");
  self->send(door, answer);
  self->send(door, again);
  sched.run();
  std::vector<DoorReply> replies;
  for (int i = 0; i < 2; ++i) self->receive([&](DoorReply& r) { replies.push_back(std::move(r)); }, caf::after(0s) >> [] {});
  REQUIRE(replies.size() == 2);
  CHECK(replies[0].ok());
  CHECK(replies[1].rpc_code == rpc::unsupported_operation);
  run_for(3s);
  // The chain above stops waiting once b goes on.
  CHECK(events("lead", "task_end").at(0)["answer"] == "lead: a: b: The operator answered: red");
}

TEST_CASE_METHOD(formation_fixture, "nobody answers within lifecycle.input_timeout_secs: the asking turn goes on without it",
                 "[sim][ask]") {
  launch_asking_chain(*this, "{task_acceptance: queue, queue_depth: 1, after_task: sleep, input_timeout_secs: 20}");
  run_for(3s);
  CHECK(only_task(tasks_of("lead")).state == TaskState::input_required);
  run_for(20s);
  CHECK(events("b", "input_timeout").size() == 1);
  const std::string answer = events("lead", "task_end").at(0)["answer"];
  CHECK(answer.find("lead: a: b: tool error: nobody answered within 20 s (lifecycle.input_timeout_secs)") == 0);
}
