// Calls carry their chain: a call back up it is refused before anything is sent, unless the
// roster allows cycles; limits.max_depth bounds every chain (messages/vocabulary/call_chain.hpp).
#include "formation_fixture.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

// lead → a → b, and b calls a back (a is waiting on b further up).
void launch_round(formation_fixture& f) {
  f.launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: a, task: 'go'}}, {reply: 'lead: {{answer.a}}'}]}\n")},
            {"a", callee_yaml("a-c", "inference: {turns: [{call: {member: b, task: 'from a'}}, {reply: 'a: {{answer.b}}'}]}\n")},
            {"b", callee_yaml("b-c", "inference: {turns: [{call: {member: a, task: 'back to a'}}, {reply: 'b answered'}]}\n")}},
           {{"lead", {"a"}}, {"a", {"b"}}, {"b", {"a"}}}, "start");
}

std::size_t tasks_received(formation_fixture& f, const std::string& member) {
  return f.events(member, "a2a_task_received").size();
}

} // namespace

TEST_CASE_METHOD(formation_fixture, "a call back up its chain is refused before anything is sent", "[sim][chain]") {
  launch_round(*this);
  run_for(3s);

  auto refused = events("b", "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["member"] == "a");
  CHECK(refused[0]["cause"] == "cycle");
  const std::string reason = refused[0]["reason"];
  CHECK(reason.find("lead \u2192 a \u2192 b \u2192 a") != std::string::npos);
  CHECK(reason.find("nothing was sent") != std::string::npos);
  CHECK(tasks_received(*this, "a") == 1); // only the lead's task ever reached a

  // Each task knows the members above it, as the door's callers' tokens name them.
  auto a_start = events("a", "task_start");
  REQUIRE(a_start.size() == 1);
  CHECK(a_start[0]["chain"] == nlohmann::json::array({"lead"}));
  auto b_start = events("b", "task_start");
  REQUIRE(b_start.size() == 1);
  CHECK(b_start[0]["chain"] == nlohmann::json::array({"lead", "a"}));
  CHECK_FALSE(events("lead", "task_start").at(0).contains("chain")); // the operator's task: nobody above

  // The formation goes on: b answers without a, and the answer comes up the chain.
  auto lead_end = events("lead", "task_end");
  REQUIRE(lead_end.size() == 1);
  CHECK(lead_end[0]["exit_status"] == "ok");
  CHECK(lead_end[0]["answer"] == "lead: a: b answered");
}

TEST_CASE_METHOD(formation_fixture, "allow_cycles lets a call go back up its chain", "[sim][chain]") {
  chain_rule = ChainRule{true, 8};
  launch_round(*this);
  run_for(3s);

  CHECK(events("b", "call_refused").empty());
  // The call went out: a, still waiting on b, runs one task at a time and queues it behind that one.
  CHECK(tasks_received(*this, "a") >= 2);
  auto second = events("a", "a2a_task_received").at(1);
  CHECK(second["caller_member"] == "b");
}

TEST_CASE_METHOD(formation_fixture, "limits.max_depth refuses a call deeper than it, cycles allowed or not", "[sim][chain]") {
  chain_rule = ChainRule{true, 2};
  launch_round(*this); // b's task is at depth 2: its call would start one at depth 3
  run_for(3s);

  auto refused = events("b", "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["cause"] == "depth");
  CHECK(refused[0]["reason"].get<std::string>().find("depth 3, past the formation's max_depth (2)") != std::string::npos);
  CHECK(tasks_received(*this, "a") == 1);
  CHECK(events("lead", "task_end").at(0)["answer"] == "lead: a: b answered");
}

TEST_CASE_METHOD(formation_fixture, "a chain of distinct members stops at max_depth", "[sim][chain]") {
  chain_rule = ChainRule{false, 2};
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: a, task: 'go'}}, {reply: 'lead: {{answer.a}}'}]}\n")},
          {"a", callee_yaml("a-c", "inference: {turns: [{call: {member: b, task: 'go'}}, {reply: 'a: {{answer.b}}'}]}\n")},
          {"b", callee_yaml("b-c", "inference: {turns: [{call: {member: c, task: 'go'}}, {reply: 'b without c'}]}\n")},
          {"c", callee_yaml("c-c", "inference: {turns: [{reply: 'c'}]}\n")}},
         {{"lead", {"a"}}, {"a", {"b"}}, {"b", {"c"}}}, "start");
  run_for(3s);

  auto refused = events("b", "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["member"] == "c");
  CHECK(refused[0]["cause"] == "depth");
  CHECK(tasks_received(*this, "c") == 0);
  CHECK(events("lead", "task_end").at(0)["answer"] == "lead: a: b without c");
}

TEST_CASE_METHOD(formation_fixture, "a deadline flows down the chain: no callee works past the moment its caller stops waiting", "[sim][chain][deadline]") {
  // The lead waits 4 s for a; a would wait 600 s for b, but its own caller stops at 4 s.
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: a, task: 'go'}}, {reply: 'lead: {{answer.a}}'}]}\n",
                              "capabilities: {network: {allow: [localhost]}}\nlifecycle: {delegation_deadline_secs: 4}\n")},
          {"a", callee_yaml("a-c", "inference: {turns: [{call: {member: b, task: 'go'}}, {reply: 'a: {{answer.b}}'}]}\n")},
          {"b", callee_yaml("b-c", "inference: {turns: [{think_ms: 60000, reply: 'too late'}]}\n")}},
         {{"lead", {"a"}}, {"a", {"b"}}}, "start");
  run_for(3s);
  auto a_start = events("a", "task_start");
  auto b_start = events("b", "task_start");
  REQUIRE(a_start.size() == 1);
  REQUIRE(b_start.size() == 1);
  const auto a_ms = a_start[0]["deadline_ms"].get<std::int64_t>();
  const auto b_ms = b_start[0]["deadline_ms"].get<std::int64_t>();
  CHECK(a_ms <= 4000);
  CHECK(a_ms > 3000);
  CHECK(b_ms <= a_ms); // what a could still wait when it called, not its 600 s call deadline
  CHECK(b_ms > 3000);
  CHECK(events("b", "task_end").empty()); // still working: nobody has stopped waiting yet

  run_for(2s);
  auto b_end = events("b", "task_end");
  REQUIRE(b_end.size() == 1);
  CHECK(b_end[0]["exit_status"] == "timed_out");
  CHECK(b_end[0]["reason"].get<std::string>().find("the caller stops waiting") != std::string::npos);
  auto a_end = events("a", "task_end");
  REQUIRE(a_end.size() == 1);
  CHECK(a_end[0]["exit_status"] == "timed_out");
  auto lead_call = events("lead", "member_call");
  REQUIRE(lead_call.size() == 1);
  CHECK(lead_call[0]["status"] == "timed_out");
}

TEST_CASE_METHOD(formation_fixture, "a task the operator started carries no deadline of a caller", "[sim][chain][deadline]") {
  launch_round(*this);
  run_for(3s);
  CHECK_FALSE(events("lead", "task_start").at(0).contains("deadline_ms"));
  CHECK(events("a", "task_start").at(0)["deadline_ms"] == 600000); // the lead's call deadline, the default
}
