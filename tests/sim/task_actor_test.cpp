// The task actor under CAF's deterministic scheduler: one scenario per rule of "How a member
// gives another work", with fake door, egress and trace actors and the real script model.
#include "task_scene.hpp"

#include "messages/vocabulary/trace_context.hpp"

using namespace task_scene;

TEST_CASE_METHOD(scene, "a reply completes the task", "[task]") {
  start(script({reply("hello from {{member}}: {{task}}")}));
  REQUIRE(door_log().working.size() == 1);
  const auto& done = finished();
  CHECK(done.task_id == "tsk_lead");
  CHECK(done.state == TaskState::completed);
  CHECK(done.answer == "hello from lead: build the thing");
  CHECK(done.exit_status == TaskExit::ok);
  CHECK(done.no_answer_below.empty());
  CHECK(event_types() == std::vector<std::string>{"task_start", "inference", "task_end"});
  // A task sent without a traceparent starts a trace of its own (docs/observability.md).
  CHECK(events("task_start")[0] == json{{"task_id", "tsk_lead"}, {"context_id", "ctx_lead"}, {"source", "a2a"},
                                       {"origin", "user"}, {"submitter", "operator"}, {"text", "build the thing"},
                                       {"trace_id", mur::trace_id_of_task("tsk_lead")},
                                       {"span_id", mur::task_span_id("tsk_lead")}});
  CHECK(events("inference")[0]["decision"] == "end_turn");
  CHECK(events("task_end")[0] == json{{"task_id", "tsk_lead"}, {"exit_status", "ok"}, {"turns", 1}, {"state", "completed"},
                                      {"answer", "hello from lead: build the thing"},
                                      {"usage", {{"tokens", 0}, {"model_requests", 1}, {"tool_calls", 0}, {"calls", 0},
                                                 // a script model reports no tokens: their split is unknown
                                                 {"input_tokens", nullptr}, {"output_tokens", nullptr},
                                                 {"reasoning_tokens", nullptr}}}});
}

TEST_CASE_METHOD(scene, "an answer comes back into the same task, fenced as coming from its member", "[task]") {
  start(script({call({{"coder", "write code for {{task}}"}}), reply("coder said: {{answer.coder}}\n---\n{{answers}}")}));
  REQUIRE(egress_log().calls.size() == 1);
  const CallMember sent = egress_log().calls[0];
  CHECK(sent.task_id == "tsk_lead");
  CHECK(sent.member == "coder");
  CHECK(sent.text == "write code for build the thing");
  CHECK(sent.call_id.rfind("mcl_", 0) == 0);
  CHECK(door_log().finished.empty()); // waiting on the call: no timer, no turn

  end_call("coder", "completed", "int main() {}");
  const auto& done = finished();
  CHECK(done.state == TaskState::completed);
  CHECK(done.answer.rfind("coder said: int main() {}\n---\n", 0) == 0);
  CHECK(done.answer.find("Call " + sent.call_id + " to coder: completed.\n<untrusted-content source=member:coder>\n"
                         "int main() {}\n</untrusted-content>") != std::string::npos);
  CHECK(done.no_answer_below.empty());
  const auto calls = events("member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["call_id"] == sent.call_id);
  CHECK(calls[0]["status"] == "completed");
  CHECK(calls[0]["delivered"] == true);
  CHECK(calls[0]["member_task_id"] == "tsk_of_coder");
  const auto cont = events("task_continued");
  REQUIRE(cont.size() == 1);
  CHECK(cont[0]["continuation_number"] == 1);
  CHECK(cont[0]["member_calls"] == 1);
  CHECK(cont[0]["turns_remaining"] == 9);
  CHECK(events("inference")[0]["decision"] == "tool_call");
}

TEST_CASE_METHOD(scene, "two members called in one turn answer in one continuation", "[task]") {
  start(script({call({{"coder", "code"}, {"tester", "test"}}), reply("{{answers}}")}));
  REQUIRE(egress_log().calls.size() == 2);
  advance_time(3s);
  end_call("tester", "completed", "tests ok");
  CHECK(door_log().finished.empty()); // coder is still out: no continuation yet
  CHECK(events("task_continued").empty());
  end_call("coder", "completed", "code ok");
  const auto& done = finished();
  CHECK(events("task_continued").size() == 1);
  CHECK(events("task_continued")[0]["member_calls"] == 2);
  CHECK(events("task_continued")[0]["waited_ms"] == 3000);
  // arrival order: tester first
  const auto t = done.answer.find("source=member:tester>\ntests ok");
  const auto c = done.answer.find("source=member:coder>\ncode ok");
  CHECK(t != std::string::npos);
  CHECK(c != std::string::npos);
  CHECK(t < c);
  CHECK(events("inference").size() == 2);
}

TEST_CASE_METHOD(scene, "a second call to the same member is refused with nothing sent", "[task]") {
  start(script({call({{"coder", "first"}, {"coder", "second"}}), reply("{{answer.coder}}")}));
  REQUIRE(egress_log().calls.size() == 1);
  CHECK(egress_log().calls[0].text == "first");
  end_call("coder", "completed", "done first");
  CHECK(finished().answer == "done first");
  CHECK(events("member_call").size() == 1);
  // what the model read back in its next turn: the first call started, the second was refused
  REQUIRE(requests().size() == 2);
  const auto& results = tool_results(requests()[1]);
  REQUIRE(results.size() == 2);
  CHECK(results[0].find("\"status\":\"started\"") != std::string::npos);
  CHECK(results[1].rfind("tool error: ", 0) == 0);
  CHECK(results[1].find("nothing was sent") != std::string::npos);
  CHECK(results[1].find("End your turn now") != std::string::npos);
  CHECK(requests()[1].answers == std::vector<MemberAnswer>{{"coder", "completed", "done first"}});
  CHECK(requests()[1].continuation.find("source=member:coder>\ndone first\n") != std::string::npos);
}

TEST_CASE_METHOD(scene, "a call to a member the roster does not allow is refused with nothing sent", "[task]") {
  start(script({call({{"stranger", "hi"}}), reply("gave up")}));
  CHECK(egress_log().calls.empty());
  CHECK(finished().answer == "gave up");
  CHECK(events("member_call").empty());
  CHECK(events("task_continued").empty());
  CHECK(events("inference").size() == 2); // the tool error went straight back into the next turn
  REQUIRE(requests().size() == 2);
  REQUIRE(tool_results(requests()[1]).size() == 1);
  CHECK(tool_results(requests()[1])[0].find("you may call: coder, tester. Nothing was sent.") != std::string::npos);
}

TEST_CASE_METHOD(scene, "a member without callees has no call-member tool", "[task]") {
  start(script({call({{"coder", "hi"}}), end_without("nobody to ask"), reply("alone")}), "member:boss", {});
  CHECK(egress_log().calls.empty());
  CHECK(finished().answer == "alone"); // end-without-answer was refused too: nobody to call
  CHECK(events("inference").size() == 3);
  REQUIRE(requests().size() == 3);
  CHECK(tool_results(requests()[1]).at(0).find("has no call-member tool") != std::string::npos);
  CHECK(tool_results(requests()[2]).at(0).find("may do neither") != std::string::npos);
}

TEST_CASE_METHOD(scene, "a busy refusal from the egress keeps the call outstanding", "[task]") {
  start(script({call({{"coder", "x"}}), reply("{{answer.coder}}")}), "operator", {"coder"},
        {{"coder", CallStart{"", CallStatus::busy, "", "up to 600 s"}}});
  CHECK(door_log().finished.empty());
  end_call("coder", "completed", "took it later");
  CHECK(finished().answer == "took it later");
}

TEST_CASE_METHOD(scene, "an egress refusal is a tool error and the next turn follows at once", "[task]") {
  start(script({call({{"coder", "x"}}), reply("refused")}), "operator", {"coder"},
        {{"coder", CallStart{"", CallStatus::refused, "", "coder's address did not arrive"}}});
  CHECK(egress_log().calls.size() == 1);
  CHECK(finished().answer == "refused");
  CHECK(events("member_call").empty());
}

TEST_CASE_METHOD(scene, "end-without-answer names the member that gave none and those below it", "[task]") {
  start(script({call({{"coder", "x"}}), end_without("coder gave no answer for {{task}}")}), "member:boss");
  CHECK(events("task_start")[0]["origin"] == "peer");
  end_call("coder", "no_answer", "coder ended its task without an answer", {NoAnswer{"tester", "timed_out"}});
  const auto& done = finished();
  CHECK(done.state == TaskState::failed);
  CHECK(done.no_answer);
  CHECK(done.status_text == "coder gave no answer for build the thing");
  CHECK(done.exit_status == TaskExit::no_answer);
  CHECK(done.answer.empty());
  CHECK(done.no_answer_below == std::vector<NoAnswer>{{"coder", "no_answer"}, {"tester", "timed_out"}});
  CHECK(events("task_end")[0]["exit_status"] == "no_answer");
  CHECK(events("member_call")[0]["status"] == "no_answer");
}

TEST_CASE_METHOD(scene, "end-without-answer is refused for a task an operator sent", "[task]") {
  start(script({call({{"coder", "x"}}), end_without("nothing"), reply("partial: {{answer.coder}}")}));
  end_call("coder", "failed", "coder crashed");
  const auto& done = finished();
  CHECK(done.state == TaskState::completed);
  CHECK_FALSE(done.no_answer);
  CHECK(events("inference").size() == 3);
  REQUIRE(requests().size() == 3);
  CHECK(tool_results(requests()[2]).at(0).find("not sent by a formation member") != std::string::npos);
  CHECK(done.answer.rfind("partial: coder gave no answer (failed): coder crashed", 0) == 0);
}

TEST_CASE_METHOD(scene, "end-without-answer is refused while a call is still out", "[task]") {
  ScriptTurn both = call({{"coder", "x"}});
  both.end_without_answer = "too early";
  start(script({both, reply("{{answer.coder}}")}), "member:boss");
  CHECK(door_log().finished.empty()); // refused: the call goes on
  end_call("coder", "completed", "fine");
  CHECK(finished().state == TaskState::completed);
  CHECK(finished().answer == "fine");
}

TEST_CASE_METHOD(scene, "a reply after a missing answer is annotated and carries the names", "[task]") {
  start(script({call({{"coder", "x"}, {"tester", "y"}}), reply("my own answer")}), "member:boss");
  end_call("coder", "completed", "code", {NoAnswer{"linter", "failed"}});
  end_call("tester", "timed_out", "");
  const auto& done = finished();
  CHECK(done.state == TaskState::completed);
  CHECK_FALSE(done.no_answer);
  CHECK(done.answer.rfind("my own answer\n\n", 0) == 0);
  CHECK(done.answer.find("tester (timed_out)") != std::string::npos);
  CHECK(done.answer.find("linter (failed)") != std::string::npos);
  CHECK(done.no_answer_below == std::vector<NoAnswer>{{"linter", "failed"}, {"tester", "timed_out"}});
}

TEST_CASE_METHOD(scene, "cancel abandons the calls still out", "[task]") {
  start(script({call({{"coder", "x"}, {"tester", "y"}}), reply("never")}));
  end_call("tester", "completed", "arrived but never delivered");
  self->send(task, cancel_atom_v);
  sched.run();
  CHECK(door_log().finished.empty()); // it waits for coder's confirmation
  REQUIRE(egress_log().abandoned.size() == 1);
  CHECK(egress_log().abandoned[0].confirm_within_ms == 4500); // one hop less than the default 5000 ms
  self->send(task, CallCanceled{call_to("coder").call_id, "coder", "canceled", "tsk_coder", {{"worker", "canceled"}}, ""});
  sched.run();
  const auto& done = finished();
  CHECK(done.status_text == "the task was canceled by the operator; canceled below it: coder, worker");
  CHECK(done.no_answer_below == std::vector<NoAnswer>{{"coder", "canceled"}, {"worker", "canceled"}});
  CHECK(done.state == TaskState::canceled);
  CHECK(done.exit_status == TaskExit::canceled);
  REQUIRE(egress_log().abandoned.size() == 1);
  CHECK(egress_log().abandoned[0].call_id == call_to("coder").call_id);
  const auto calls = events("member_call");
  REQUIRE(calls.size() == 2);
  for (const auto& c : calls) CHECK(c["delivered"] == false);
  CHECK(calls[0]["status"] == "canceled");  // still out: canceled with the task (cancel follows the tree)
  CHECK(calls[1]["status"] == "abandoned"); // an undelivered completed answer is abandoned
  CHECK(egress_log().abandoned[0].cancel);
  CHECK(calls[0]["member"] == "coder"); // in the order the calls were made
  CHECK(calls[1]["member"] == "tester");
  CHECK(calls[1]["output"] == "arrived but never delivered");
  CHECK(events("task_end")[0]["exit_status"] == "canceled");
}

TEST_CASE_METHOD(scene, "a task that runs out of turns fails with max_turns_reached", "[task]") {
  start(script({call({{"coder", "1"}}), call({{"coder", "2"}}), call({{"coder", "3"}})}), "operator", {"coder"}, {}, 2);
  end_call("coder", "completed", "one");
  REQUIRE(egress_log().calls.size() == 2);
  // the second call is answered too: the next turn would be number 2
  CallEnded e{egress_log().calls[1].call_id, "coder", CallStatus::completed, "two", "tsk_of_coder", {}, 1};
  self->send(task, e);
  sched.run();
  const auto& done = finished();
  CHECK(done.state == TaskState::failed);
  CHECK(done.exit_status == TaskExit::max_turns_reached);
  CHECK(events("task_end")[0]["turns"] == 2);
  CHECK(events("task_continued")[1]["turns_remaining"] == 0);
}

TEST_CASE_METHOD(scene, "a model failure fails the task with its text", "[task]") {
  ScriptTurn t;
  t.fail = "model exploded on {{member}}";
  start(script({t}));
  CHECK(finished().state == TaskState::failed);
  CHECK(finished().status_text == "model exploded on lead");
  CHECK(finished().exit_status == TaskExit::failed);
  CHECK(events("inference")[0]["decision"] == "error");
}

TEST_CASE_METHOD(scene, "a script that runs out of entries completes with an empty answer", "[task]") {
  start(script({}));
  CHECK(finished().state == TaskState::completed);
  CHECK(finished().answer.empty());
}

TEST_CASE_METHOD(scene, "think_ms passes on the simulated clock before the turn", "[task]") {
  start(script({reply("thought", 500)}));
  CHECK(door_log().finished.empty());
  advance_time(499ms);
  sched.run();
  CHECK(door_log().finished.empty());
  advance_time(1ms);
  sched.run();
  CHECK(finished().answer == "thought");
}

TEST_CASE_METHOD(scene, "the first matching route is played", "[task]") {
  Inference inf = script({reply("default")});
  inf.routes.push_back(ScriptRoute{"^nothing$", {reply("no")}});
  inf.routes.push_back(ScriptRoute{"b[a-z]+d", {reply("route for {{task}}")}});
  start(inf);
  CHECK(finished().answer == "route for build the thing");
}

TEST_CASE_METHOD(scene, "an output over 64 KiB is cut in the trace and in the continuation", "[task]") {
  start(script({call({{"coder", "x"}}), reply("{{answer.coder}}")}));
  end_call("coder", "completed", std::string(70000, 'a'));
  const auto calls = events("member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["truncated"] == true);
  CHECK(calls[0]["output"].get<std::string>().size() < 66000);
  CHECK(finished().answer.size() < 66000);
  CHECK(finished().answer.find("cut at 64 KiB") != std::string::npos);
}

TEST_CASE_METHOD(scene, "an egress that rejects at once is waited on until its CallEnded", "[task]") {
  start(script({call({{"coder", "x"}}), reply("{{answers}}")}), "member:boss", {"coder"},
        {{"coder", CallStart{"", CallStatus::rejected, "", "task rejected: not allowed"}}});
  CHECK(door_log().finished.empty());
  REQUIRE(requests().size() == 1);
  end_call("coder", "rejected", "task rejected: not allowed");
  REQUIRE(requests().size() == 2);
  CHECK(tool_results(requests()[1]).at(0).find("ended rejected with no answer from coder") != std::string::npos);
  CHECK(tool_results(requests()[1]).at(0).find("call end-without-answer") != std::string::npos);
  CHECK(finished().answer.find("Call " + call_to("coder").call_id + " to coder: rejected, with no answer from coder.") !=
        std::string::npos);
  CHECK(finished().no_answer_below == std::vector<NoAnswer>{{"coder", "rejected"}});
}

TEST_CASE_METHOD(scene, "a callee that does not confirm the cancel within the bound is named", "[task]") {
  start(script({call({{"coder", "x"}, {"tester", "y"}}), reply("never")}));
  self->send(task, cancel_atom_v, std::string("caller:lead"), std::int64_t{2000});
  sched.run();
  REQUIRE(egress_log().abandoned.size() == 2);
  for (const auto& a : egress_log().abandoned) CHECK(a.confirm_within_ms == 1500);
  self->send(task, CallCanceled{call_to("tester").call_id, "tester", "ended", "tsk_tester", {}, ""});
  sched.run();
  advance_time(1749ms); // the task waits its canceller's bound less half a hop: 1750 ms
  sched.run();
  CHECK(door_log().finished.empty());
  advance_time(1ms);
  sched.run();
  const auto& done = finished();
  CHECK(done.state == TaskState::canceled);
  CHECK(done.status_text ==
        "the task was canceled by its caller lead; did not confirm the cancel: coder (no confirmation within 1750 ms)");
  CHECK(done.no_answer_below == std::vector<NoAnswer>{{"coder", "unconfirmed"}});
  CHECK(events("task_end").at(0)["canceled_by"] == "caller:lead");
  // A confirmation after the end changes nothing.
  self->send(task, CallCanceled{call_to("coder").call_id, "coder", "canceled", "tsk_coder", {}, ""});
  sched.run();
  CHECK(door_log().finished.size() == 1);
}

TEST_CASE_METHOD(scene, "a call that ends on its own while the cancel is out counts as confirmed", "[task]") {
  start(script({call({{"coder", "x"}}), reply("never")}));
  self->send(task, cancel_atom_v);
  sched.run();
  end_call("coder", "completed", "done anyway");
  const auto& done = finished();
  CHECK(done.state == TaskState::canceled);
  CHECK(done.status_text == "the task was canceled by the operator");
  CHECK(done.no_answer_below.empty());
  CHECK(requests().size() == 1); // its answer is never delivered to a model
}

TEST_CASE_METHOD(scene, "a task canceled while its model thinks ends once and ignores the late turn", "[task]") {
  start(script({reply("too late", 1000)}));
  self->send(task, cancel_atom_v);
  sched.run();
  CHECK(finished().state == TaskState::canceled);
  advance_time(1s);
  sched.run();
  CHECK(door_log().finished.size() == 1);
  CHECK(events("task_end").size() == 1);
  CHECK(events("inference").empty());
}

TEST_CASE_METHOD(scene, "an empty answer after a refused end-without-answer says why in its status", "[task]") {
  start(script({end_without("nothing to say"), reply("")}));
  const auto& done = finished();
  CHECK(done.state == TaskState::completed);
  CHECK(done.answer.empty());
  CHECK_FALSE(done.no_answer);
  CHECK(done.status_text.rfind("completed with an empty answer; end-without-answer was refused: ", 0) == 0);
  CHECK(done.status_text.find("not sent by a formation member") != std::string::npos);
}

TEST_CASE_METHOD(scene, "a plain empty answer says nothing of a refusal", "[task]") {
  start(script({reply("")}));
  CHECK(finished().answer.empty());
  CHECK(finished().status_text.find("end-without-answer") == std::string::npos);
}
