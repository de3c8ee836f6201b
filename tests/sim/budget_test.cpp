// Budgets flow down (messages/vocabulary/task_budget.hpp): a task stops spending at its limits,
// every call carries what is left, a callee's usage is charged to its caller when its answer
// arrives, and a task that reaches a limit ends budget_exhausted, naming the limit and the use.
#include "chat_script.hpp"
#include "formation_fixture.hpp"

#include <cstdint>
#include <limits>

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

task_scene::ModelTurn with_tokens(task_scene::ModelTurn t, std::int64_t prompt, std::int64_t completion) {
  t.stats.prompt_tokens = prompt;
  t.stats.completion_tokens = completion;
  return t;
}

} // namespace

TEST_CASE_METHOD(task_scene::chat_scene, "max_tokens: the request that crosses it is the last, and a call carries what is left",
                 "[sim][budget]") {
  limits.own.budget.max_tokens = 100;
  play({with_tokens(task_scene::tools({task_scene::call_member("c1", "coder", "write it")}), 50, 20),
        with_tokens(task_scene::says("Waiting for coder."), 30, 10), task_scene::says("never asked")});
  // The call went out with what the task had left after its first request.
  CHECK(call_to("coder").budget.max_tokens == 30);
  CHECK(call_to("coder").budget.max_calls == no_limit);
  CHECK(events("task_start").at(0)["budget"] == json{{"max_tokens", 100}});
  // Coder's answer says it spent 5 tokens: charged to the task, which has none left to ask with.
  end_call("coder", "completed", "done", {}, Usage{5, 1, 0, 0});
  CHECK(requests().size() == 2);
  const auto& done = finished();
  CHECK(done.state == TaskState::failed);
  CHECK(done.exit_status == TaskExit::budget_exhausted);
  CHECK(done.status_text == "budget exhausted: max_tokens (100, the capsule's) reached, 115 used");
  // 110 of the tokens were this task's own (80 in + 30 out); the coder's 5 came without a split.
  CHECK(done.usage == (Usage{115, 3, 0, 1, 80, 30, 0, 2, 0}));
  const auto end = events("task_end").at(0);
  CHECK(end["exit_status"] == "budget_exhausted");
  CHECK(end["usage"] == json{{"tokens", 115}, {"model_requests", 3}, {"tool_calls", 0}, {"calls", 1},
                             {"input_tokens", 80}, {"output_tokens", 30}, {"reasoning_tokens", nullptr}});
  CHECK(end["own_usage"] == json{{"tokens", 110}, {"model_requests", 2}, {"tool_calls", 0}, {"calls", 1},
                                 {"input_tokens", 80}, {"output_tokens", 30}, {"reasoning_tokens", nullptr}});
}

TEST_CASE_METHOD(task_scene::chat_scene, "a model server's token counts past 10^12 are clamped, never wrapped",
                 "[sim][budget]") {
  limits.own.budget.max_tokens = 1000;
  play({with_tokens(task_scene::tools({task_scene::call_member("c1", "coder", "go")}), std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()),
        task_scene::says("never asked")});
  CHECK(call_to("coder").budget.max_tokens == 0); // nothing left, not a wrapped-around count
  end_call("coder", "completed", "done");
  const auto& done = finished();
  CHECK(done.exit_status == TaskExit::budget_exhausted);
  CHECK(done.usage.tokens == max_limit_value);
}

TEST_CASE_METHOD(task_scene::chat_scene, "a response asking for more calls than are left runs none of them",
                 "[sim][budget]") {
  caller_budget.max_calls = 1; // the caller had one call left when it called
  play({task_scene::tools({task_scene::call_member("c1", "coder", "one"), task_scene::call_member("c2", "tester", "two")}),
        task_scene::says("never asked")}, "member:boss");
  CHECK(egress_log().calls.empty());
  const auto& done = finished();
  CHECK(done.exit_status == TaskExit::budget_exhausted);
  CHECK(done.status_text == "budget exhausted: max_calls (1, the caller's remaining) reached, 0 used");
}

TEST_CASE_METHOD(task_scene::chat_scene, "the formation's limits bind a task a person sent, not one a member sent",
                 "[sim][budget]") {
  limits.formation.budget.max_model_requests = 1;
  SECTION("a person's task") {
    play({task_scene::tools({task_scene::call_member("c1", "coder", "go")}), task_scene::says("never asked")});
    CHECK(requests().size() == 1);
    CHECK(finished().status_text.find("max_model_requests (1, the formation's) reached, 1 used") != std::string::npos);
  }
  SECTION("a member's task") {
    play({task_scene::says("answered"), task_scene::says("never asked")}, "member:boss");
    CHECK(finished().state == TaskState::completed);
    CHECK_FALSE(events("task_start").at(0).contains("budget"));
  }
}

TEST_CASE_METHOD(task_scene::chat_scene, "max_wall_secs is the task's deadline and its calls'", "[sim][budget]") {
  limits.own.max_wall_secs = 30;
  play({task_scene::tools({task_scene::call_member("c1", "coder", "slow work")}), task_scene::says("Waiting.")});
  CHECK(call_to("coder").deadline_ms == 30'000);
  sched.clock().advance_time(29s);
  sched.run();
  CHECK(door_log().finished.empty());
  sched.clock().advance_time(1s);
  sched.run();
  const auto& done = finished();
  CHECK(done.exit_status == TaskExit::budget_exhausted);
  CHECK(done.status_text == "budget exhausted: max_wall_secs (30 s, the capsule's) reached");
  REQUIRE(egress_log().abandoned.size() == 1); // nobody waits for coder's answer any more
}

// lead → a (which calls c), then lead → b: the roster's max_calls of 3 is split between them.
TEST_CASE_METHOD(formation_fixture, "a budget split across two callees, exhausted in the second", "[sim][budget]") {
  limits.budget.max_calls = 3;
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: a, task: 'first'}}, {call: {member: b, task: 'second'}}, "
                                        "{reply: 'a said {{answer.a}}; b said {{answer.b}}'}]}\n")},
          {"a", callee_yaml("a-c", "inference: {turns: [{call: {member: c, task: 'help a'}}, {reply: 'a done ({{answer.c}})'}]}\n")},
          {"b", callee_yaml("b-c", "inference: {turns: [{call: {member: c, task: 'help b'}}, {reply: 'b done'}]}\n")},
          {"c", callee_yaml("c-c", "inference: {turns: [{reply: 'c helped'}]}\n")}},
         {{"lead", {"a", "b"}}, {"a", {"c"}}, {"b", {"c"}}}, "start");
  run_for(5s);

  // a started with what the lead had left after its own call; b with what a's usage left.
  CHECK(events("a", "task_start").at(0)["budget"] == nlohmann::json{{"max_calls", 2}});
  CHECK(events("b", "task_start").at(0)["budget"] == nlohmann::json{{"max_calls", 0}});
  CHECK(events("c", "task_start").size() == 1); // only a's call reached c

  auto b_end = events("b", "task_end");
  REQUIRE(b_end.size() == 1);
  CHECK(b_end[0]["exit_status"] == "budget_exhausted");
  CHECK(b_end[0]["reason"] == "budget exhausted: max_calls (0, the caller's remaining) reached, 0 used");

  // The lead is told in words, and its usage is the whole tree's.
  auto lead_end = events("lead", "task_end");
  REQUIRE(lead_end.size() == 1);
  CHECK(lead_end[0]["exit_status"] == "ok");
  const std::string answer = lead_end[0]["answer"];
  INFO(answer);
  CHECK(answer.find("a said a done (c helped)") != std::string::npos);
  CHECK(answer.find("b said b gave no answer (failed): budget exhausted: max_calls (0, the caller's remaining) reached, 0 used") != std::string::npos);
  CHECK(lead_end[0]["usage"]["calls"] == 3);
  CHECK(lead_end[0]["usage"]["model_requests"] == 3 + 2 + 1 + 1);
  CHECK(lead_end[0]["own_usage"]["calls"] == 2);
  CHECK(lead_end[0]["budget"] == nlohmann::json{{"max_calls", 3}});
}
