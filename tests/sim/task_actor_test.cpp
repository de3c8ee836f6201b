// The task actor under CAF's deterministic scheduler: one scenario per rule of "How a member
// gives another work", with fake door, egress and trace actors and the real script model.
#include "caf_catch.hpp"

#include "actors/atoms.hpp"
#include "actors/task.hpp"
#include "capsule/manifest.hpp"
#include "capsule/script_model.hpp"
#include "messages/member_call.hpp"
#include "messages/model_turn.hpp"
#include "messages/task_progress.hpp"
#include "messages/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <map>

using namespace mur;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

struct config : caf::actor_system_config {};

struct fixture : test_coordinator_fixture<config> {
  ~fixture() override {
    sched.run();
    sched.clock().cancel_all();
  }
};

// -- fakes ------------------------------------------------------------------------------------

struct DoorLog {
  std::vector<TaskWorking> working;
  std::vector<TaskFinished> finished;
};
caf::behavior fake_door(caf::stateful_actor<DoorLog>* self) {
  return {
    [=](const TaskWorking& w) { self->state.working.push_back(w); },
    [=](const TaskFinished& f) { self->state.finished.push_back(f); },
  };
}

struct TraceLog {
  std::vector<TraceEvent> events;
};
caf::behavior fake_trace(caf::stateful_actor<TraceLog>* self) {
  return {[=](const TraceEvent& e) { self->state.events.push_back(e); }};
}

// Answers each CallMember with the CallStart scripted for its member (default: started).
struct EgressLog {
  std::map<std::string, CallStart> starts;
  std::vector<CallMember> calls;
  std::vector<AbandonCall> abandoned;
};
caf::behavior fake_egress(caf::stateful_actor<EgressLog>* self, std::map<std::string, CallStart> starts) {
  self->state.starts = std::move(starts);
  return {
    [=](const CallMember& c) -> CallStart {
      self->state.calls.push_back(c);
      CallStart s{c.call_id, CallStatus::started, "tsk_of_" + c.member, ""};
      auto it = self->state.starts.find(c.member);
      if (it != self->state.starts.end()) {
        s.status = it->second.status;
        s.message = it->second.message;
      }
      return s;
    },
    [=](const AbandonCall& a) { self->state.abandoned.push_back(a); },
  };
}

// Records every request on its way to the real script model.
struct ModelLog {
  caf::actor inner;
  std::vector<ModelTurnRequest> requests;
};
caf::behavior spy_model(caf::stateful_actor<ModelLog>* self, caf::actor inner) {
  self->state.inner = std::move(inner);
  return {[=](const ModelTurnRequest& req) {
    self->state.requests.push_back(req);
    return self->delegate(self->state.inner, req);
  }};
}

// The results of the tools the model called last, as the request's transcript carries them.
std::vector<std::string> tool_results(const ModelTurnRequest& req) {
  std::vector<std::string> out;
  std::size_t at = req.transcript.size();
  while (at > 0 && req.transcript[at - 1].role != TranscriptRole::assistant) --at;
  for (; at < req.transcript.size(); ++at)
    if (req.transcript[at].role == TranscriptRole::tool) out.push_back(req.transcript[at].content);
  return out;
}

// -- script building ----------------------------------------------------------------------------

ScriptTurn reply(std::string text, std::int64_t think_ms = 0) {
  ScriptTurn t;
  t.reply = std::move(text);
  t.think_ms = think_ms;
  return t;
}
ScriptTurn call(std::vector<ScriptCall> calls) {
  ScriptTurn t;
  t.calls = std::move(calls);
  return t;
}
ScriptTurn end_without(std::string reason) {
  ScriptTurn t;
  t.end_without_answer = std::move(reason);
  return t;
}
Inference script(std::vector<ScriptTurn> turns) {
  Inference inf;
  inf.turns = std::move(turns);
  return inf;
}

// -- the scene ----------------------------------------------------------------------------------

struct scene : fixture {
  caf::actor door = sys.spawn(fake_door);
  caf::actor trace = sys.spawn(fake_trace);
  caf::actor egress;
  caf::actor model;
  caf::actor task;

  void start(const Inference& inf, std::string submitter = "operator", std::vector<std::string> callees = {"coder", "tester"},
             std::map<std::string, CallStart> starts = {}, int max_turns = 10) {
    egress = sys.spawn(fake_egress, std::move(starts));
    model = sys.spawn(spy_model, caf::actor_cast<caf::actor>(spawn_script_model(sys, inf)));
    TaskSetup setup;
    setup.task.id = "tsk_lead";
    setup.task.context_id = "ctx_lead";
    setup.task.request = "build the thing";
    setup.task.submitter = std::move(submitter);
    setup.member = "lead";
    setup.callees = std::move(callees);
    setup.max_turns = max_turns;
    // The fakes are untyped (they record what they get): cast to the ports they stand in for.
    setup.model = caf::actor_cast<model_port>(model);
    setup.egress = caf::actor_cast<call_port>(egress);
    setup.trace = caf::actor_cast<trace_port>(trace);
    setup.door = caf::actor_cast<task_owner>(door);
    task = caf::actor_cast<caf::actor>(spawn_task(sys, setup));
    sched.run();
  }

  DoorLog& door_log() { return deref<caf::stateful_actor<DoorLog>>(door).state; }
  std::vector<ModelTurnRequest>& requests() { return deref<caf::stateful_actor<ModelLog>>(model).state.requests; }
  EgressLog& egress_log() { return deref<caf::stateful_actor<EgressLog>>(egress).state; }

  std::vector<json> events(const std::string& type) {
    std::vector<json> out;
    for (const auto& e : deref<caf::stateful_actor<TraceLog>>(trace).state.events)
      if (e.type == type) out.push_back(json::parse(e.fields));
    return out;
  }
  std::vector<std::string> event_types() {
    std::vector<std::string> out;
    for (const auto& e : deref<caf::stateful_actor<TraceLog>>(trace).state.events) out.push_back(e.type);
    return out;
  }

  const CallMember& call_to(const std::string& member) {
    for (const auto& c : egress_log().calls)
      if (c.member == member) return c;
    FAIL("no call to " << member);
    throw 0;
  }

  // The egress reports how the call to `member` ended.
  void end_call(const std::string& member, const std::string& status, const std::string& output,
                std::vector<NoAnswer> below = {}) {
    const auto& c = call_to(member);
    CallEnded e;
    e.call_id = c.call_id;
    e.member = member;
    e.status = parse_call_status(status).value();
    e.output = output;
    e.member_task_id = "tsk_of_" + member;
    e.below = std::move(below);
    e.duration_ms = 42;
    self->send(task, e);
    sched.run();
  }

  const TaskFinished& finished() {
    REQUIRE(door_log().finished.size() == 1);
    return door_log().finished.front();
  }
};

} // namespace

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
  CHECK(events("task_start")[0] == json{{"task_id", "tsk_lead"}, {"context_id", "ctx_lead"}, {"source", "a2a"},
                                       {"origin", "user"}});
  CHECK(events("inference")[0]["decision"] == "end_turn");
  CHECK(events("task_end")[0] == json{{"task_id", "tsk_lead"}, {"exit_status", "ok"}, {"turns", 1}});
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
  CHECK(requests()[1].answers == std::vector<MemberText>{{"coder", "done first"}});
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
  CHECK(tool_results(requests()[2]).at(0).find("may call none") != std::string::npos);
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
  const auto& done = finished();
  CHECK(done.state == TaskState::canceled);
  CHECK(done.exit_status == TaskExit::canceled);
  REQUIRE(egress_log().abandoned.size() == 1);
  CHECK(egress_log().abandoned[0].call_id == call_to("coder").call_id);
  const auto calls = events("member_call");
  REQUIRE(calls.size() == 2);
  for (const auto& c : calls) {
    CHECK(c["delivered"] == false);
    CHECK(c["status"] == "abandoned"); // an undelivered completed answer counts as abandoned too
  }
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
