// "How a formation ends", and the launch's own failures, in whole simulated formations.
#include "formation_fixture.hpp"

#include "actors/member.hpp"
#include "actors/trace_recorder.hpp"
#include "capsule/member_wiring.hpp"
#include "capsule/script_model.hpp"
#include "messages/credentials/door_scope.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {
const std::string slow_coder = "inference: {turns: [{think_ms: 60000, reply: 'late'}]}\n";
const std::string quick_idle = "inference: {turns: [{reply: 'idle'}]}\n";
const std::string calls_coder =
  "inference: {turns: [{call: {member: coder, task: 'work'}}, {reply: 'got {{answer.coder}}'}]}\n";

// Launches the lead (entry, `lead_body` its manifest after name and version) calling the slow
// coder; the launch's task, knobs and deadline as given.
void lead_over_slow_coder(formation_fixture& f, const std::string& lead_body, const std::string& task = "",
                          Knobs knobs = {}, std::chrono::milliseconds deadline = {}) {
  f.launch({{"lead", entry_yaml("lead-c", lead_body)}, {"coder", callee_yaml("coder-c", slow_coder)}},
           {{"lead", {"coder"}}}, task, std::move(knobs), deadline);
}

// The formation ended with `code`, and both the lead and the coder recorded formation_ended once.
void ended_with(formation_fixture& f, int code) {
  CHECK(f.exit_code() == code);
  for (const char* m : {"lead", "coder"}) CHECK(f.events(m, "formation_ended").size() == 1);
}
} // namespace

TEST_CASE_METHOD(formation_fixture, "the launcher dies mid-call: every member records formation_ended, cancels and ends",
                 "[sim][formation][ending]") {
  launch({{"lead", entry_yaml("lead-c", calls_coder)},
          {"coder", callee_yaml("coder-c", slow_coder)},
          {"idle", callee_yaml("idle-c", quick_idle)}},
         {{"lead", {"coder"}}}, "go");
  run_for(1s);
  REQUIRE(events("coder", "a2a_task_received").size() == 1);
  // SIGKILL of the launcher: no teardown code runs in it; the lifelines close with it.
  anon_send_exit(launcher, caf::exit_reason::kill);
  sched.run();
  run_for(1s);
  for (const char* m : {"lead", "coder", "idle"}) {
    INFO(m);
    auto t = trace(m);
    auto ended = events(m, "formation_ended");
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]["formation_id"] == t.front()["formation_id"]);
    // formation_ended comes before the wind-down's own records, and session_end is last.
    CHECK(t.back()["event_type"] == "session_end");
    std::size_t at_ended = 0;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i]["event_type"] == "formation_ended") at_ended = i;
    for (std::size_t i = at_ended + 1; i < t.size(); ++i)
      CHECK(t[i]["event_type"] != "task_start");
  }
  CHECK(events("coder", "task_end").at(0)["exit_status"] == "canceled");
  CHECK(events("coder", "session_end").at(0)["exit_status"] == "formation_ended");
  CHECK(events("idle", "session_end").at(0)["exit_status"] == "ok");
  auto lead_calls = events("lead", "member_call");
  REQUIRE(lead_calls.size() == 1);
  CHECK(lead_calls[0]["status"] == "canceled"); // the session's end cancels what it had out
  CHECK(lead_calls[0]["delivered"] == false);
  // Every member is gone.
  for (const char* m : {"lead", "coder", "idle"}) CHECK(!member_actor(m));
}

TEST_CASE_METHOD(formation_fixture, "an address that never arrives is refused after 10 simulated seconds",
                 "[sim][formation][ending]") {
  Knobs k;
  k.withhold_addresses = {"coder"};
  launch({{"lead", entry_yaml("lead-c", calls_coder)},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{call: {member: reviewer, task: r}}, {reply: 'coder: {{answer.reviewer}}'}]}\n")},
          {"reviewer", callee_yaml("reviewer-c", "inference: {turns: [{reply: 'ok'}]}\n")}},
         {{"lead", {"coder"}}, {"coder", {"reviewer"}}}, "go", k);
  advance(9900ms);
  CHECK(events("coder", "task_end").empty());
  CHECK(events("reviewer", "a2a_task_received").empty());
  advance(200ms);
  auto ends = events("coder", "task_end");
  REQUIRE(ends.size() == 1); // the refused call was a tool error; the script then replied
  CHECK(events("reviewer", "a2a_task_received").empty());
  CHECK(events("coder", "member_call").empty());
  run_for(1s);
  CHECK(launch_task("lead").answer == "got coder: ");
}

TEST_CASE_METHOD(formation_fixture, "a call that outlives its deadline ends timed out, and so does the callee's task",
                 "[sim][formation][ending]") {
  lead_over_slow_coder(*this,
                       "inference: {turns: [{call: {member: coder, task: w}}, {think_ms: 10000, reply: '{{answer.coder}}'}]}\n"
                       "lifecycle: {delegation_deadline_secs: 5}\n",
                       "go");
  advance(4900ms);
  CHECK(events("lead", "member_call").empty());
  advance(200ms);
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["status"] == "timed_out");
  CHECK(calls[0]["delivered"] == true);
  // The deadline went down with the call: the callee stopped when its caller stopped waiting.
  auto coder_end = events("coder", "task_end");
  REQUIRE(coder_end.size() == 1);
  CHECK(coder_end[0]["exit_status"] == "timed_out");
}

TEST_CASE_METHOD(formation_fixture, "a peer that cannot start fails the launch with E-RUN-045 and nothing stays up",
                 "[sim][formation][ending]") {
  Knobs k;
  k.fail_spawn = {"reviewer"};
  launch({{"lead", entry_yaml("lead-c", calls_coder)},
          {"coder", callee_yaml("coder-c", slow_coder)},
          {"reviewer", callee_yaml("reviewer-c", slow_coder)}},
         {{"lead", {"coder"}}}, "go", k);
  run_for(1s);
  auto* failed = progress_event("failed");
  REQUIRE(failed);
  CHECK(failed->detail.find("E-RUN-045") != std::string::npos);
  CHECK(failed->detail.find("\n  'reviewer' (reviewer-c@1.0.0): could not be started") != std::string::npos);
  // Every member whose process had been started is listed as stopped (the reviewer never was).
  CHECK(failed->detail.substr(failed->detail.rfind('\n')) == "\n  stopped: coder");
  CHECK(exit_code() == 1);
  CHECK(!progress_event("entry")); // the entry never started
  CHECK(!member_actor("coder"));
  CHECK(events("coder", "formation_ended").size() == 1);
}

TEST_CASE_METHOD(formation_fixture, "a peer whose door never answers as its session fails the launch after the ready deadline",
                 "[sim][formation][ending]") {
  Knobs k;
  k.never_ready = {"coder"};
  lead_over_slow_coder(*this, calls_coder, "go", k);
  advance(179s);
  CHECK(!progress_event("failed"));
  run_for(2s, 100ms);
  auto* failed = progress_event("failed");
  REQUIRE(failed);
  CHECK(failed->detail.find("'coder' (coder-c@1.0.0): its door did not answer as session") != std::string::npos);
  CHECK(failed->detail.substr(failed->detail.rfind('\n')) == "\n  stopped: coder"); // not ready, still started
  CHECK(exit_code() == 1);
}

TEST_CASE_METHOD(formation_fixture, "the formation's deadline ends it with 124", "[sim][formation][ending]") {
  lead_over_slow_coder(*this, calls_coder, "go", {}, 30s);
  advance(29s);
  CHECK(!progress_event("ended"));
  run_for(2s, 100ms);
  ended_with(*this, 124);
}

TEST_CASE_METHOD(formation_fixture, "serve mode: the entry takes tasks one after another until a signal ends it with 128+N",
                 "[sim][formation][ending]") {
  lead_over_slow_coder(*this, "inference: {turns: [{reply: 'served {{task}}'}]}\n");
  run_for(500ms);
  REQUIRE(progress_event("entry"));
  auto door = door_of("lead");
  for (const char* text : {"one", "two"}) {
    DoorRequest req;
    req.method = DoorMethod::send_message;
    req.text = text;
    req.verdict.kind = DoorAuthorization::Kind::Ok;
    req.verdict.credential = "operator";
    req.verdict.scopes = {mur::DoorMethod::send_message, mur::DoorMethod::get_task, mur::DoorMethod::list_tasks};
    auto r = ask<DoorReply>(door, req);
    CHECK(r.ok());
    run_for(200ms);
  }
  auto tasks = tasks_of("lead");
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].answer == "served one");
  CHECK(tasks[1].answer == "served two");
  CHECK(!progress_event("ended"));
  anon_send(launcher, sigterm_atom_v, std::int32_t{15});
  run_for(1s);
  ended_with(*this, 143);
}

TEST_CASE_METHOD(formation_fixture, "a member's own deadline winds it down without formation_ended",
                 "[sim][formation][ending]") {
  lead_over_slow_coder(*this, "inference: {turns: [{reply: 'served'}]}\n");
  run_for(500ms);
  anon_send(member_actor("coder"), deadline_atom_v);
  run_for(500ms);
  CHECK(events("coder", "formation_ended").empty());
  auto end = events("coder", "session_end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["exit_status"] == "ok");
  CHECK(!member_actor("coder"));
  CHECK(!progress_event("ended")); // a peer ending on its own does not end the formation
}


TEST_CASE_METHOD(formation_fixture, "ListTasks at the entry's door shows its launch task, submitted by its operator",
                 "[sim][formation][door]") {
  lead_over_slow_coder(*this, calls_coder, "the launch task");
  run_for(1s);
  REQUIRE(events("coder", "a2a_task_received").size() == 1); // the lead waits on its call
  auto listed = ask<DoorReply>(door_of("lead"), from_operator(DoorMethod::list_tasks));
  REQUIRE(listed.ok());
  REQUIRE(listed.total_size == 1);
  REQUIRE(listed.tasks.size() == 1);
  const TaskView& t = listed.tasks[0];
  CHECK(t.request == "the launch task");
  CHECK(t.submitter == "operator");
  CHECK(t.state == TaskState::working);
  CHECK(t.id == events("lead", "task_start").at(0)["task_id"].get<std::string>());
  // It is the task whose ending the entry reports (what `mur run --roster --task` prints).
  run_for(61s);
  const TaskView done = launch_task("lead");
  CHECK(done.id == t.id);
  CHECK(done.answer == "got late");
}

TEST_CASE_METHOD(formation_fixture, "cancel follows the tree: a canceled task's call cancels the callee's task, and the formation goes on",
                 "[sim][formation][ending]") {
  // Serve mode: the operator hands the entry a task, which calls the slow coder.
  lead_over_slow_coder(*this, calls_coder);
  run_for(500ms);
  REQUIRE(progress_event("entry"));
  DoorRequest first = from_operator(DoorMethod::send_message);
  first.text = "one";
  first.return_immediately = true;
  const TaskView sent = ask<DoorReply>(door_of("lead"), first).task;
  run_for(1s);
  auto held = events("lead", "member_call_start");
  REQUIRE(held.size() == 1);
  const std::string coder_task = held[0]["member_task_id"];

  DoorRequest cancel = from_operator(DoorMethod::cancel_task);
  cancel.task_id = sent.id;
  CHECK(ask<DoorReply>(door_of("lead"), cancel).task.state == TaskState::canceled);
  run_for(1s);
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["status"] == "canceled");
  CHECK(calls[0]["delivered"] == false);
  CHECK(events("lead", "task_end").at(0)["canceled_by"] == "operator");
  // The callee's task was canceled by its caller, with the caller's own credential.
  auto coder_tasks = tasks_of("coder");
  REQUIRE(coder_tasks.size() == 1);
  CHECK(coder_tasks[0].id == coder_task);
  CHECK(coder_tasks[0].state == TaskState::canceled);
  auto coder_end = events("coder", "task_end");
  REQUIRE(coder_end.size() == 1);
  CHECK(coder_end[0]["state"] == "canceled");
  CHECK(coder_end[0]["canceled_by"] == "caller:lead");
  CHECK_FALSE(progress_event("ended"));
  CHECK(member_actor("lead"));
  CHECK(member_actor("coder"));
  CHECK(tasks_of("lead").at(0).state == TaskState::canceled);

  // The formation goes on: the entry takes its next task, whose call the coder answers.
  DoorRequest second = from_operator(DoorMethod::send_message);
  second.text = "two";
  second.return_immediately = true;
  const TaskView next = ask<DoorReply>(door_of("lead"), second).task;
  REQUIRE(next.state != TaskState::rejected);
  run_for(62s);
  TaskView answered;
  for (const auto& t : tasks_of("lead"))
    if (t.id == next.id) answered = t;
  CHECK(answered.state == TaskState::completed);
  CHECK(answered.answer == "got late");
  CHECK_FALSE(progress_event("ended"));
}

TEST_CASE_METHOD(formation_fixture, "a callee that ignores the cancel is named in the answer, within the bound the canceller gave",
                 "[sim][formation][ending][cancel]") {
  lead_over_slow_coder(*this, calls_coder);
  run_for(500ms);
  DoorRequest first = from_operator(DoorMethod::send_message);
  first.text = "one";
  first.return_immediately = true;
  const TaskView sent = ask<DoorReply>(door_of("lead"), first).task;
  run_for(1s);
  REQUIRE(events("lead", "member_call_start").size() == 1);
  anon_send(spawner, hang_atom_v, std::string("coder")); // its door takes requests and answers none
  sched.run();

  DoorRequest cancel = from_operator(DoorMethod::cancel_task);
  cancel.task_id = sent.id;
  cancel.deadline_ms = 2000; // confirmWithinMs
  self->send(door_of("lead"), cancel);
  run_for(1500ms);
  CHECK(events("lead", "task_end").empty()); // still waiting for coder
  run_for(500ms);
  DoorReply r;
  bool got = false;
  self->receive([&](DoorReply& x) { r = std::move(x); got = true; }, caf::after(std::chrono::seconds(0)) >> [] {});
  REQUIRE(got);
  CHECK(r.task.state == TaskState::canceled);
  CHECK(r.task.status_text == "the task was canceled by the operator; did not confirm the cancel: coder (no answer within 1500 ms)");
  CHECK(r.task.no_answer_below == std::vector<NoAnswer>{{"coder", "unconfirmed"}});
  auto end = events("lead", "task_end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["no_answer_below"] == nlohmann::json::parse(R"([{"member":"coder","status":"unconfirmed"}])"));
}

// The launch task starts only once the member has handed out its door: a task that ends at once
// can never end the member before whoever serves the door holds it (the E-RUN-049 race).
TEST_CASE_METHOD(formation_fixture, "a member starts its launch task only when its door is first asked for",
                 "[sim][member][launch]") {
  const Manifest m = manifest(entry_yaml("solo-c", "inference: {turns: [{reply: 'done at once'}]}\n", "") +
                              "lifecycle: {task_acceptance: single, after_task: exit}\n");
  LaunchOptions launch;
  launch.session_id = "ses_launchfirst";
  launch.task = "go";
  launch.entry = true;
  MemberPorts ports;
  ports.trace = spawn_trace_recorder(sys, launch.session_id, {}, ids);
  ports.model = spawn_script_model(sys, m.inference);
  ports.supervisor = caf::actor_cast<supervisor_port>(self);
  ports.ids = ids;
  const trace_port recorder = ports.trace;
  auto member = spawn_member(sys, member_setup(m, launch, std::move(ports)));
  sched.run();
  advance(1s);
  auto received = [&] {
    int n = 0;
    for (const auto& line : ask<std::vector<std::string>>(recorder, trace_atom_v))
      if (nlohmann::json::parse(line)["event_type"] == "a2a_task_received") ++n;
    return n;
  };
  CHECK(received() == 0); // nobody asked for the door: no task, and the member still runs

  const door_handle door = ask<door_handle>(member, caf::get_atom_v);
  CHECK(door);
  CHECK(received() == 1);
  // The launch task ran as the operator's and ended; the member (after_task: exit) tells its
  // supervisor how, once.
  sched.run();
  std::vector<TaskView> ended;
  for (int i = 0; i < 8; ++i)
    self->receive([&](TaskEvent& ev) { ended.push_back(ev.task); }, [](task_end_atom, const TaskView&) {},
                  [](ended_atom, const std::string&, std::int32_t) {}, caf::after(std::chrono::seconds(0)) >> [] {});
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].request == "go");
  CHECK(ended[0].answer == "done at once");
  CHECK(ended[0].submitter == std::string(OPERATOR_CREDENTIAL));
  anon_send_exit(member, caf::exit_reason::kill);
  anon_send_exit(recorder, caf::exit_reason::kill);
  sched.run();
}

TEST_CASE_METHOD(formation_fixture, "a stopped formation ends from the top down: the entry's tree is canceled by its "
                 "callers before the peers' lifelines close",
                 "[sim][formation][ending]") {
  const std::string calls_b =
    "inference: {turns: [{call: {member: b, task: 'deeper'}}, {reply: 'a got {{answer.b}}'}]}\n";
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: a, task: 'work'}}, "
                                        "{reply: 'lead got {{answer.a}}'}]}\n")},
          {"a", callee_yaml("a-c", calls_b)},
          {"b", callee_yaml("b-c", slow_coder)}},
         {{"lead", {"a"}}, {"a", {"b"}}}, "go");
  run_for(1s);
  REQUIRE(events("b", "a2a_task_received").size() == 1);
  anon_send(launcher, sigterm_atom_v, std::int32_t{15});
  run_for(5s);
  CHECK(exit_code() == 143);
  // Each task was canceled by the one above it: none saw its callee vanish first and answered.
  const std::vector<std::pair<std::string, std::string>> by{
    {"lead", "session_ending"}, {"a", "caller:lead"}, {"b", "caller:a"}};
  for (const auto& [m, who] : by) {
    INFO(m);
    auto end = events(m, "task_end");
    REQUIRE(end.size() == 1);
    CHECK(end[0]["exit_status"] == "canceled");
    CHECK(end[0]["canceled_by"] == who);
    CHECK(events(m, "formation_ended").size() == 1);
    CHECK(!member_actor(m));
  }
}
