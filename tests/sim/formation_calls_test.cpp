// "How a member gives another work", sentence by sentence, in whole simulated formations.
#include "formation_fixture.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {


std::vector<std::string> statuses(const std::vector<nlohmann::json>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls) out.push_back(c["status"]);
  return out;
}

} // namespace

TEST_CASE_METHOD(formation_fixture, "a busy callee is re-offered until it frees up and both answers arrive",
                 "[sim][formation][busy]") {
  launch_shared_coder(*this);
  run_for(10s);
  CHECK(exit_code() == 0);
  auto answer = launch_task("lead");
  CHECK(answer.state == TaskState::completed);
  CHECK(answer.answer.find("A=a: coded from a") != std::string::npos);
  CHECK(answer.answer.find("B=b: coded from b") != std::string::npos);
  // Exactly one of a and b was turned away busy at first, and was offered again until it held.
  auto busy_a = events("a", "member_call_busy");
  auto busy_b = events("b", "member_call_busy");
  CHECK(busy_a.empty() != busy_b.empty());
  const auto& busy = busy_a.empty() ? busy_b : busy_a;
  REQUIRE(!busy.empty());
  CHECK(busy[0]["offer"] == 1);
  CHECK(busy[0]["message"] == busy_status_text);
  for (std::size_t i = 1; i < busy.size(); ++i) CHECK(busy[i]["offer"] == busy[i - 1]["offer"].get<int>() + 1);
  CHECK(statuses(events("a", "member_call")) == std::vector<std::string>{"completed"});
  CHECK(statuses(events("b", "member_call")) == std::vector<std::string>{"completed"});
  // The coder refused the busy offers (recorded at its door) and ran two tasks, one after the other.
  CHECK(events("coder", "task_end").size() == 2);
  CHECK(!events("coder", "task_rejected").empty());
}

TEST_CASE_METHOD(formation_fixture, "a formation: two members called in one turn answer in one continuation",
                 "[sim][formation]") {
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: [{member: a, task: x}, {member: b, task: y}]}, "
                                        "{reply: '{{answers}}'}]}\n")},
          {"a", callee_yaml("a-c", "inference: {turns: [{think_ms: 300, reply: 'from a'}]}\n")},
          {"b", callee_yaml("b-c", "inference: {turns: [{think_ms: 100, reply: 'from b'}]}\n")}},
         {{"lead", {"a", "b"}}}, "go");
  run_for(2s);
  CHECK(exit_code() == 0);
  auto cont = events("lead", "task_continued");
  REQUIRE(cont.size() == 1);
  CHECK(cont[0]["member_calls"] == 2);
  CHECK(cont[0]["waited_ms"].get<int>() >= 300);
  auto answer = launch_task("lead").answer;
  // Both answers fenced, each as coming from its member, b's first (it arrived first).
  auto pa = answer.find("<untrusted-content source=member:a>\nfrom a\n</untrusted-content>");
  auto pb = answer.find("<untrusted-content source=member:b>\nfrom b\n</untrusted-content>");
  CHECK(pa != std::string::npos);
  CHECK(pb != std::string::npos);
  CHECK(pb < pa);
}

TEST_CASE_METHOD(formation_fixture, "a formation: a second call to a member is refused with nothing sent", "[sim][formation]") {
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: [{member: coder, task: one}, {member: coder, task: two}]}, "
                                        "{reply: '{{answer.coder}}'}]}\n")},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{reply: 'did {{task}}'}]}\n")}},
         {{"lead", {"coder"}}}, "go");
  run_for(1s);
  CHECK(exit_code() == 0);
  CHECK(events("coder", "a2a_task_received").size() == 1); // nothing sent for the second call
  CHECK(launch_task("lead").answer == "did one");
  CHECK(events("lead", "member_call").size() == 1);
}

TEST_CASE_METHOD(formation_fixture, "a callee ending without an answer is named, and a reply anyway is annotated",
                 "[sim][formation][no-answer]") {
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: coder, task: fix}}, {reply: 'shipped anyway'}]}\n")},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{call: {member: reviewer, task: 'review {{task}}'}}, "
                                           "{end_without_answer: 'the reviewer gave nothing'}]}\n")},
          {"reviewer", callee_yaml("reviewer-c", "inference: {turns: [{fail: 'reviewer crashed'}]}\n")}},
         {{"lead", {"coder"}}, {"coder", {"reviewer"}}}, "go");
  run_for(1s);
  auto coder_calls = events("coder", "member_call");
  REQUIRE(coder_calls.size() == 1);
  CHECK(coder_calls[0]["status"] == "failed");
  CHECK(events("coder", "task_end").at(0)["exit_status"] == "no_answer");
  auto lead_calls = events("lead", "member_call");
  REQUIRE(lead_calls.size() == 1);
  CHECK(lead_calls[0]["status"] == "no_answer");
  CHECK(lead_calls[0]["output"] == "the reviewer gave nothing");
  auto answer = launch_task("lead");
  CHECK(answer.state == TaskState::completed);
  CHECK(answer.answer.rfind("shipped anyway", 0) == 0);
  CHECK(answer.answer.find("coder") != std::string::npos); // the line naming whom it answered without
  REQUIRE(answer.no_answer_below.size() == 2);
  CHECK(answer.no_answer_below[0] == NoAnswer{"coder", "no_answer"});
  CHECK(answer.no_answer_below[1] == NoAnswer{"reviewer", "failed"});
}

TEST_CASE_METHOD(formation_fixture, "no-answer names propagate two levels up", "[sim][formation][no-answer]") {
  const std::string pass_down = "inference: {turns: [{call: {member: NEXT, task: '{{task}}'}}, "
                                "{end_without_answer: 'NEXT gave no answer'}]}\n";
  auto chain = [&](const std::string& next) {
    std::string s = pass_down;
    for (std::size_t p; (p = s.find("NEXT")) != std::string::npos;) s.replace(p, 4, next);
    return s;
  };
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: coder, task: go}}, "
                                        "{end_without_answer: 'nothing came back'}]}\n")},
          {"coder", callee_yaml("coder-c", chain("reviewer"))},
          {"reviewer", callee_yaml("reviewer-c", chain("tester"))},
          {"tester", callee_yaml("tester-c", "inference: {turns: [{fail: 'no test rig'}]}\n")}},
         {{"lead", {"coder"}}, {"coder", {"reviewer"}}, {"reviewer", {"tester"}}}, "go");
  run_for(2s);
  // The lead's own task came from the operator: end-without-answer is refused; the script then
  // runs out and the task completes empty, annotated with everyone who gave none.
  auto lead = launch_task("lead");
  REQUIRE(lead.no_answer_below.size() == 3);
  CHECK(lead.no_answer_below[0] == NoAnswer{"coder", "no_answer"});
  CHECK(lead.no_answer_below[1] == NoAnswer{"reviewer", "no_answer"});
  CHECK(lead.no_answer_below[2] == NoAnswer{"tester", "failed"});
  CHECK(events("reviewer", "task_end").at(0)["exit_status"] == "no_answer");
  CHECK(events("coder", "task_end").at(0)["exit_status"] == "no_answer");
}

TEST_CASE_METHOD(formation_fixture, "no roster edge means no call-member tool and nothing sent", "[sim][formation][reach]") {
  launch({{"lead", entry_yaml("lead-c", relay_lead)},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{reply: 'never'}]}\n")}},
         {}, "go");
  run_for(1s);
  CHECK(exit_code() == 0);
  CHECK(events("lead", "session_start").at(0)["formation_callees"] == nlohmann::json::array());
  CHECK(events("coder", "a2a_task_received").empty());
  CHECK(events("lead", "member_call").empty());
}

TEST_CASE_METHOD(formation_fixture, "a callee without peer consent refuses the call at its door", "[sim][formation][reach]") {
  launch({{"lead", entry_yaml("lead-c", relay_lead)},
          {"coder", "name: coder-c\nversion: 1.0.0\nlifecycle: {task_acceptance: queue, after_task: sleep}\n"
                    "network: {authentication: {scheme: bearer}}\n"}},
         {{"lead", {"coder"}}}, "go");
  run_for(1s);
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["status"] == "failed");
  CHECK(calls[0]["output"].get<std::string>().find("refused the call: peer_not_accepted") != std::string::npos);
  CHECK(events("coder", "a2a_task_received").empty());
}

TEST_CASE_METHOD(formation_fixture, "a caller without localhost egress is refused and nothing is sent", "[sim][formation][reach]") {
  launch({{"lead", entry_yaml("lead-c", relay_lead, "")},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{reply: 'never'}]}\n")}},
         {{"lead", {"coder"}}}, "go");
  run_for(1s);
  CHECK(events("coder", "a2a_task_received").empty());
  CHECK(events("lead", "member_call").empty());
  CHECK(launch_task("lead").state == TaskState::completed);
}

TEST_CASE_METHOD(formation_fixture, "the entry member is never callable", "[sim][formation][reach]") {
  // Even a plan that lists the entry as a callee yields no credential for it.
  launch({{"lead", entry_yaml("lead-c", relay_lead)},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{call: {member: lead, task: 'hey'}}, {reply: 'done'}]}\n")}},
         {{"lead", {"coder"}}, {"coder", {"lead"}}}, "go");
  run_for(1s);
  CHECK(exit_code() == 0);
  CHECK(events("coder", "session_start").at(0)["formation_callees"] == nlohmann::json::array());
  CHECK(events("lead", "a2a_task_received").size() == 1); // only its own launch task
  CHECK(launch_task("lead").answer == "Lead got: done");
}

TEST_CASE_METHOD(formation_fixture, "a callee's broken stream is followed by polling and the answer still arrives",
                 "[sim][formation]") {
  Knobs k;
  k.broken_streams = {"coder"};
  launch({{"lead", entry_yaml("lead-c", relay_lead)},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{think_ms: 2000, reply: 'slow and done'}]}\n")}},
         {{"lead", {"coder"}}}, "go", k);
  run_for(5s);
  CHECK(exit_code() == 0);
  CHECK(launch_task("lead").answer == "Lead got: slow and done");
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["status"] == "completed");
  CHECK(calls[0]["duration_ms"].get<int>() >= 2000);
}
