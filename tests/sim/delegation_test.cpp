// Delegation to sub-capsules (docs/spec/choices.md §Sub-capsules) in whole simulated
// formations: the `delegate` tool of a
// script, the child started through the (simulated) child port, its answer fenced as
// capsule:<name> in the same one continuation as member answers, and how children end.
#include "formation_fixture.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

std::string capsule_yaml(const std::string& name, const std::string& inference) {
  return "name: " + name + "\nversion: 1.0.0\n" + inference;
}

Knobs installed(std::vector<std::pair<std::string, std::string>> capsules) {
  Knobs k;
  for (auto& [name, inference] : capsules)
    k.installed.emplace(name + "@1.0.0", formation_fixture::manifest(capsule_yaml(name, inference)));
  return k;
}

std::string delegating_lead(const std::string& turns, const std::string& allow = "[summarizer@1.0.0]") {
  return entry_yaml("lead-c", "inference: {turns: " + turns + "}\n",
                    "capabilities: {network: {allow: [localhost]}, spawn: {allow: " + allow + "}}\n");
}

struct delegation_fixture : formation_fixture {
  caf::actor children(const std::string& member) { return ask<caf::actor>(spawner, children_atom_v, member); }
  std::vector<nlohmann::json> child_trace(const caf::actor& port, const std::string& call_id) {
    std::vector<nlohmann::json> out;
    for (const auto& line : ask<std::vector<std::string>>(port, trace_atom_v, call_id))
      out.push_back(nlohmann::json::parse(line));
    return out;
  }
  static std::vector<nlohmann::json> of_type(const std::vector<nlohmann::json>& t, const std::string& type) {
    std::vector<nlohmann::json> out;
    for (const auto& e : t)
      if (e["event_type"] == type) out.push_back(e);
    return out;
  }
  bool child_alive(const caf::actor& port, const std::string& call_id) { return ask<bool>(port, caf::get_atom_v, call_id); }
  // The child of delegation `call_id` (its trace `child`) had its task canceled, wound down to
  // session_end, and is gone.
  void child_canceled_and_gone(const caf::actor& port, const std::string& call_id, const std::vector<nlohmann::json>& child) {
    CHECK(of_type(child, "task_end").at(0)["exit_status"] == "canceled");
    CHECK(child.back()["event_type"] == "session_end");
    CHECK(!child_alive(port, call_id));
  }
  // The entry `lead` delegates its launch task to a child that thinks for a minute; returns the
  // delegation's id once the child holds its task.
  std::string start_slow_child() {
    launch({{"lead", delegating_lead("[{delegate: {capsule: summarizer, task: slow}}, {reply: '{{answers}}'}]")}}, {}, "go",
           installed({{"summarizer", "inference: {turns: [{think_ms: 60000, reply: late}]}\n"}}));
    run_for(1s);
    auto started = events("lead", "delegation_start");
    REQUIRE(started.size() == 1);
    const std::string dlg = started[0]["call_id"];
    REQUIRE(child_alive(children("lead"), dlg));
    return dlg;
  }
  DoorReply operator_request(const std::string& member, DoorRequest req) {
    req.verdict.kind = DoorAuthorization::Kind::Ok;
    req.verdict.credential = "operator";
    req.verdict.scopes = {mur::DoorMethod::send_message, mur::DoorMethod::get_task, mur::DoorMethod::list_tasks, mur::DoorMethod::cancel_task};
    return ask<DoorReply>(door_of(member), req);
  }
};

} // namespace

TEST_CASE_METHOD(delegation_fixture, "a delegation is answered and fenced as capsule:NAME in the next turn",
                 "[sim][delegation]") {
  launch({{"lead", delegating_lead("[{delegate: {capsule: summarizer, task: 'sum {{task}}'}}, "
                                   "{reply: 'got {{answer.summarizer}} | {{answers}}'}]")}},
         {}, "the report", installed({{"summarizer", "inference: {turns: [{think_ms: 300, reply: 'short {{task}}'}]}\n"}}));
  run_for(2s);
  const TaskView done = launch_task("lead");
  REQUIRE(done.state == TaskState::completed);
  CHECK(done.answer.rfind("got short sum the report | ", 0) == 0);
  CHECK(done.answer.find("Delegation dlg_") != std::string::npos);
  CHECK(done.answer.find("<untrusted-content source=capsule:summarizer>\nshort sum the report") != std::string::npos);

  auto started = events("lead", "delegation_start");
  REQUIRE(started.size() == 1);
  const std::string dlg = started[0]["call_id"];
  CHECK(dlg.rfind("dlg_", 0) == 0);
  CHECK(started[0]["capsule"] == "summarizer");
  auto ended = events("lead", "delegation");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0]["status"] == "completed");
  CHECK(ended[0]["delivered"] == true);
  CHECK(ended[0]["task"] == "sum the report");
  CHECK(ended[0]["output"] == "short sum the report");
  CHECK(ended[0]["child_task_id"] == started[0]["child_task_id"]);
  CHECK(events("lead", "member_call").empty());
  auto cont = events("lead", "task_continued");
  REQUIRE(cont.size() == 1);
  CHECK(cont[0]["delegations"] == 1);
  CHECK(cont[0]["member_calls"] == 0);

  // The child: its own session in the same formation, one task, ended after it (after_task: exit).
  auto port = children("lead");
  auto child = child_trace(port, dlg);
  REQUIRE(!child.empty());
  CHECK(child.front()["event_type"] == "session_start");
  CHECK(child.front()["formation_id"] == trace("lead").front()["formation_id"]);
  CHECK(child.front()["session_id"] == started[0]["child_session"]);
  CHECK(!child.front().contains("formation_member"));
  CHECK(child.front()["spawned_by"] == trace("lead").front()["session_id"]);
  CHECK(child.front()["delegation"] == dlg);
  auto child_tasks = of_type(child, "task_start");
  REQUIRE(child_tasks.size() == 1);
  CHECK(child_tasks[0]["task_id"] == started[0]["child_task_id"]);
  CHECK(child_tasks[0]["origin"] == "user"); // sent with its operator credential, not as a member
  CHECK(of_type(child, "task_end").at(0)["state"] == "completed");
  CHECK(!child_alive(port, dlg));
}

TEST_CASE_METHOD(delegation_fixture, "a child that cannot start, and one whose task fails, are named like members that gave none",
                 "[sim][delegation]") {
  Knobs k = installed({{"summarizer", "inference: {turns: [{reply: 'never'}]}\n"},
                       {"checker", "inference: {turns: [{fail: 'the checker broke'}]}\n"}});
  k.fail_children = {"summarizer"};
  launch({{"lead", delegating_lead("[{delegate: [{capsule: summarizer, task: a}, {capsule: checker, task: b}]}, "
                                   "{reply: '{{answers}}'}]",
                                   "[summarizer@1.0.0, checker@1.0.0]")}},
         {}, "go", k);
  run_for(2s);
  const TaskView done = launch_task("lead");
  REQUIRE(done.state == TaskState::completed);
  CHECK(done.answer.find("No answer came from: capsule:summarizer (call dlg_") != std::string::npos);
  CHECK(done.answer.find("capsule:checker (call dlg_") != std::string::npos);
  auto ended = events("lead", "delegation");
  REQUIRE(ended.size() == 2);
  for (const auto& e : ended) CHECK(e["status"] == "failed");
  CHECK(ended[0]["capsule"] == "summarizer");
  CHECK(ended[0]["output"].get<std::string>().find("cannot be started") != std::string::npos);
  CHECK(ended[1]["output"] == "the checker broke");
  CHECK(events("lead", "delegation_start").size() == 1); // only the checker ever held its task
  CHECK(events("lead", "task_continued").at(0)["delegations"] == 2);
}

TEST_CASE_METHOD(delegation_fixture, "two delegations and a member call are answered in one continuation",
                 "[sim][delegation]") {
  launch({{"lead", delegating_lead("[{call: {member: helper, task: h}, delegate: [{capsule: summarizer, task: s}, "
                                   "{capsule: checker, task: c}]}, {reply: '{{answers}}'}]",
                                   "[summarizer@1.0.0, checker@1.0.0]")},
          {"helper", callee_yaml("helper-c", "inference: {turns: [{think_ms: 700, reply: 'helped'}]}\n")}},
         {{"lead", {"helper"}}}, "go",
         installed({{"summarizer", "inference: {turns: [{think_ms: 200, reply: 'summed'}]}\n"},
                    {"checker", "inference: {turns: [{think_ms: 1500, reply: 'checked'}]}\n"}}));
  run_for(3s);
  const TaskView done = launch_task("lead");
  REQUIRE(done.state == TaskState::completed);
  for (const char* fence : {"source=member:helper>\nhelped", "source=capsule:summarizer>\nsummed",
                            "source=capsule:checker>\nchecked"})
    CHECK(done.answer.find(fence) != std::string::npos);
  auto cont = events("lead", "task_continued");
  REQUIRE(cont.size() == 1);
  CHECK(cont[0]["member_calls"] == 1);
  CHECK(cont[0]["delegations"] == 2);
  CHECK(cont[0]["continuation_number"] == 1);
}

TEST_CASE_METHOD(delegation_fixture, "the parent's task canceled: the child's task is canceled and the child ends",
                 "[sim][delegation][ending]") {
  launch({{"lead", delegating_lead("[{delegate: {capsule: summarizer, task: slow}}, {reply: '{{answers}}'}]")}}, {}, "",
         installed({{"summarizer", "inference: {turns: [{think_ms: 60000, reply: late}]}\n"}}));
  run_for(500ms);
  DoorRequest send;
  send.method = DoorMethod::send_message;
  send.text = "go";
  send.return_immediately = true;
  const DoorReply sent = operator_request("lead", send);
  REQUIRE(sent.ok());
  run_for(1s);
  auto started = events("lead", "delegation_start");
  REQUIRE(started.size() == 1);
  const std::string dlg = started[0]["call_id"];
  auto port = children("lead");
  CHECK(child_alive(port, dlg));
  DoorRequest cancel;
  cancel.method = DoorMethod::cancel_task;
  cancel.task_id = sent.task.id;
  CHECK(operator_request("lead", cancel).task.state == TaskState::canceled);
  run_for(1s);
  auto ended = events("lead", "delegation");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0]["status"] == "canceled");
  child_canceled_and_gone(port, dlg, child_trace(port, dlg));
}

TEST_CASE_METHOD(delegation_fixture, "the parent killed: its child's spawner lifeline closes and the child winds down",
                 "[sim][delegation][ending]") {
  const std::string dlg = start_slow_child();
  auto port = children("lead");
  self->send(spawner, KillMember{"lead"}); // as SIGKILL: no code of the parent runs
  sched.run();
  run_for(1s);
  CHECK(!member_actor("lead"));
  CHECK(events("lead", "delegation").empty()); // the parent recorded nothing more
  auto child = child_trace(port, dlg);
  // The child's first record after the close is spawner_ended, before its wind-down's own.
  const auto ended = of_type(child, "spawner_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0]["spawned_by"] == child.front()["spawned_by"]);
  CHECK(of_type(child, "formation_ended").empty());
  CHECK(ended[0]["timestamp"] <= of_type(child, "task_end").at(0)["timestamp"]);
  child_canceled_and_gone(port, dlg, child);
}

TEST_CASE_METHOD(delegation_fixture, "the launcher killed: members and their children end",
                 "[sim][delegation][ending]") {
  const std::string dlg = start_slow_child();
  auto port = children("lead");
  anon_send_exit(launcher, caf::exit_reason::kill);
  sched.run();
  run_for(1s);
  CHECK(!member_actor("lead"));
  CHECK(events("lead", "delegation").at(0)["status"] == "canceled");
  CHECK(!child_alive(port, dlg));
}

TEST_CASE_METHOD(delegation_fixture, "end-without-answer names the child further down that gave none",
                 "[sim][delegation]") {
  const std::string worker =
    "name: worker-c\nversion: 1.0.0\n"
    "inference: {turns: [{delegate: {capsule: checker, task: c}}, {end_without_answer: 'the check did not come'}]}\n"
    "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n"
    "exports: {peer_tasks: {accept: true}}\n"
    "capabilities: {network: {allow: [localhost]}, spawn: {allow: [checker@1.0.0]}}\n"
    "network: {authentication: {scheme: bearer}}\n";
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: worker, task: w}}, {reply: '{{answers}}'}]}\n")},
          {"worker", worker}},
         {{"lead", {"worker"}}}, "go", installed({{"checker", "inference: {turns: [{fail: 'broken'}]}\n"}}));
  run_for(2s);
  auto worker_end = events("worker", "task_end");
  REQUIRE(worker_end.size() == 1);
  CHECK(worker_end[0]["exit_status"] == "no_answer");
  CHECK(worker_end[0]["no_answer_below"] == nlohmann::json::array({{{"member", "capsule:checker"}, {"status", "failed"}}}));
  auto call = events("lead", "member_call");
  REQUIRE(call.size() == 1);
  CHECK(call[0]["status"] == "no_answer");
  const TaskView done = launch_task("lead");
  CHECK(done.answer.find("No answer came from: worker (call mcl_") != std::string::npos);
  CHECK(done.answer.find("further down, nothing came from capsule:checker (failed)") != std::string::npos);
}

TEST_CASE_METHOD(delegation_fixture, "a child past delegation_deadline_secs ends the delegation timed out, and the child is ended",
                 "[sim][delegation][ending]") {
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{delegate: {capsule: summarizer, task: slow}}, {reply: '{{answers}}'}]}\n"
                                        "lifecycle: {delegation_deadline_secs: 5}\n",
                              "capabilities: {network: {allow: [localhost]}, spawn: {allow: [summarizer@1.0.0]}}\n")}},
         {}, "go", installed({{"summarizer", "inference: {turns: [{think_ms: 60000, reply: late}]}\n"}}));
  advance(4900ms);
  auto started = events("lead", "delegation_start");
  REQUIRE(started.size() == 1);
  const std::string dlg = started[0]["call_id"];
  auto port = children("lead");
  CHECK(events("lead", "delegation").empty());
  CHECK(child_alive(port, dlg));
  advance(200ms);
  run_for(1s);
  auto ended = events("lead", "delegation");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0]["status"] == "timed_out");
  CHECK(ended[0]["output"].get<std::string>().find("within the call deadline of 5 s") != std::string::npos);
  CHECK(launch_task("lead").answer.find("No answer came from: capsule:summarizer") != std::string::npos);
  auto child = child_trace(port, dlg);
  CHECK(of_type(child, "task_end").at(0)["exit_status"] == "canceled");
  CHECK(!child_alive(port, dlg));
}

TEST_CASE_METHOD(delegation_fixture, "a chain of capsules that delegate round stops at the depth limit: the child at depth 3 may not delegate",
                 "[sim][delegation]") {
  // ping hands its task to pong and pong to ping (a capsule may not name itself): without a limit,
  // a chain without end.
  auto relay = [](const std::string& next) {
    return "inference: {turns: [{delegate: {capsule: " + next + ", task: 'deeper {{task}}'}}, "
           "{reply: 'from below: {{answer." + next + "}}{{tool_results}}'}]}\n"
           "capabilities: {spawn: {allow: [" + next + "@1.0.0]}}\n";
  };
  launch({{"lead", delegating_lead("[{delegate: {capsule: ping, task: go}}, {reply: 'lead: {{answer.ping}}'}]",
                                   "[ping@1.0.0]")}},
         {}, "go", installed({{"ping", relay("pong")}, {"pong", relay("ping")}}));
  run_for(10s);
  const TaskView done = launch_task("lead");
  REQUIRE(done.state == TaskState::completed);
  // ping (1) → pong (2) → ping (3): the third's delegation is a tool error naming the limit
  CHECK(done.answer.find("delegation stops here: this member is a delegated child at depth 3, the limit (3)") !=
        std::string::npos);
  // each child's answer holds the one below it: three of them, the innermost the refusal
  CHECK(done.answer.rfind("lead: from below: from below: from below: tool error: delegation stops here", 0) == 0);
  auto port = children("lead");
  const std::string dlg = events("lead", "delegation_start").at(0)["call_id"];
  auto first = child_trace(port, dlg);
  CHECK(first.front()["delegation_depth"] == 1);
  CHECK_FALSE(first.front().contains("delegates"));
  CHECK(of_type(first, "delegation_start").size() == 1); // depth 1 and 2 delegate; only depth 3 may not
}

// lead (depth 0) calls coder (1), which delegates to a helper child (2), which delegates to a
// deep grandchild (3) that thinks for a minute: one CancelTask at the entry reaches all of them.
TEST_CASE_METHOD(delegation_fixture, "cancel at the entry reaches depth 3 through a member and a delegation in the middle",
                 "[sim][delegation][cancel]") {
  const std::string coder =
    "name: coder-c\nversion: 1.0.0\ninference: {turns: [{delegate: {capsule: helper, task: help}}, {reply: '{{answers}}'}]}\n"
    "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\nexports: {peer_tasks: {accept: true}}\n"
    "capabilities: {network: {allow: [localhost]}, spawn: {allow: [helper@1.0.0]}}\nnetwork: {authentication: {scheme: bearer}}\n";
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: coder, task: go}}, {reply: '{{answers}}'}]}\n")},
          {"coder", coder}},
         {{"lead", {"coder"}}}, "",
         installed({{"helper", "inference: {turns: [{delegate: {capsule: deep, task: dig}}, {reply: '{{answers}}'}]}\n"
                               "capabilities: {spawn: {allow: [deep@1.0.0]}}\n"},
                    {"deep", "inference: {turns: [{think_ms: 60000, reply: late}]}\n"}}));
  run_for(500ms);
  DoorRequest send;
  send.method = DoorMethod::send_message;
  send.text = "start";
  send.return_immediately = true;
  const DoorReply sent = operator_request("lead", send);
  REQUIRE(sent.ok());
  run_for(2s);
  auto started = events("coder", "delegation_start");
  REQUIRE(started.size() == 1);
  const std::string dlg = started[0]["call_id"];
  auto port = children("coder");
  REQUIRE(of_type(child_trace(port, dlg), "delegation_start").size() == 1); // the helper holds the deep child

  DoorRequest cancel;
  cancel.method = DoorMethod::cancel_task;
  cancel.task_id = sent.task.id;
  const DoorReply r = operator_request("lead", cancel);
  REQUIRE(r.ok());
  CHECK(r.task.state == TaskState::canceled);
  CHECK(r.task.status_text == "the task was canceled by the operator; canceled below it: coder, capsule:helper, capsule:deep");
  CHECK(r.task.no_answer_below ==
        std::vector<NoAnswer>{{"coder", "canceled"}, {"capsule:helper", "canceled"}, {"capsule:deep", "canceled"}});
  // Every level ended canceled, each saying by whom.
  CHECK(events("lead", "task_end").at(0)["canceled_by"] == "operator");
  CHECK(events("coder", "task_end").at(0)["canceled_by"] == "caller:lead");
  CHECK(events("coder", "delegation").at(0)["status"] == "canceled");
  run_for(1s);
  auto helper = child_trace(port, dlg);
  const auto helper_end = of_type(helper, "task_end");
  REQUIRE(helper_end.size() == 1);
  CHECK(helper_end[0]["state"] == "canceled");
  CHECK(helper_end[0]["no_answer_below"] == nlohmann::json::parse(R"([{"member":"capsule:deep","status":"canceled"}])"));
  CHECK(of_type(helper, "delegation").at(0)["status"] == "canceled");
  CHECK(!child_alive(port, dlg));
}
