// The task's rules about message order, pinned one message at a time with CAF's expect(...)
// (from(a).to(b)), in the style of CAF's ping_pong example: the round's one continuation is asked
// for only after its last outcome; a cancel abandons the calls still out before the task reports
// its end.
#include "task_scene.hpp"

using namespace task_scene;

namespace {

CallEnded outcome(const CallMember& c, const std::string& output) {
  return CallEnded{c.call_id, c.member, CallStatus::completed, output, "tsk_of_" + c.member, {}, 1};
}

} // namespace

TEST_CASE_METHOD(scene, "the continuation is asked for only after the round's last outcome", "[task][order]") {
  start(script({call({{"coder", "code"}, {"tester", "test"}}), reply("{{answers}}")}));
  REQUIRE(egress_log().calls.size() == 2);
  const std::size_t asked = requests().size();
  self->send(task, outcome(call_to("tester"), "tests ok"));
  expect((CallEnded), from(self).to(task));
  CHECK_FALSE(sched.has_job()); // coder is still out: nothing is asked, nothing traced
  self->send(task, outcome(call_to("coder"), "code ok"));
  expect((CallEnded), from(self).to(task));
  expect((ModelTurnRequest), from(task).to(model)); // ONE continuation, with both answers
  REQUIRE(requests().size() == asked + 1);
  CHECK(requests().back().turn == 1);
  sched.run();
  CHECK(finished().state == TaskState::completed);
}

TEST_CASE_METHOD(scene, "a cancel abandons the calls still out before the task reports its end", "[task][order]") {
  start(script({call({{"coder", "code"}}), reply("unused")}));
  REQUIRE(egress_log().calls.size() == 1);
  self->send(task, cancel_atom_v);
  expect((cancel_atom), from(self).to(task));
  expect((AbandonCall), from(task).to(egress).with(AbandonCall{call_to("coder").call_id, true, 4500}));
  CHECK_FALSE(sched.has_job()); // it waits for the callee's confirmation
  self->send(task, CallCanceled{call_to("coder").call_id, "coder", "canceled", "tsk_1", {}, ""});
  expect((CallCanceled), from(self).to(task));
  expect((TaskFinished), from(task).to(door));
  CHECK(finished().state == TaskState::canceled);
}
