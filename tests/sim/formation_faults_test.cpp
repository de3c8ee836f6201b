// Faults named right and seen (docs/spec/choices.md §Faults are named), in whole simulated
// formations: a callee
// that held a call and then answers nothing (as SIGSTOP) ends the call timed_out or unreachable
// in words that say so, never busy; a killed callee is named as refusing the connection, and the
// launcher records it and ends the formation with 69; a callee that ends as its lifecycle says
// is no fault, and later calls to it name a member that has ended.
#include "formation_fixture.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {


std::string lead_with_deadline(int secs) {
  return entry_yaml("lead-c", relay_lead,
                    "capabilities: {network: {allow: [localhost]}}\nlifecycle: {delegation_deadline_secs: " +
                      std::to_string(secs) + "}\n");
}

// A coder that takes the task and thinks far longer than any call deadline here.
const std::string slow_coder = callee_yaml("coder-c", "inference: {turns: [{think_ms: 3600000, reply: 'never'}]}\n");

std::string output_of(const nlohmann::json& call) { return call["output"].get<std::string>(); }

struct faults_fixture : formation_fixture {
  // The lead calls the slow coder (call deadline `deadline_secs`); once the coder holds the task
  // its door stops answering (as SIGSTOP); after `wait` the lead's one member_call event.
  nlohmann::json call_after_coder_hangs(int deadline_secs, std::chrono::milliseconds wait) {
    launch({{"lead", lead_with_deadline(deadline_secs)}, {"coder", slow_coder}}, {{"lead", {"coder"}}}, "go");
    run_for(1s);
    REQUIRE(events("lead", "member_call_start").size() == 1); // the coder holds the task
    anon_send(spawner, hang_atom_v, std::string("coder"));
    run_for(wait);
    auto calls = events("lead", "member_call");
    REQUIRE(calls.size() == 1);
    return calls[0];
  }
  // That call ends with `status`, its output holding each of `holds` and never "busy".
  void hung_call_ends(int deadline_secs, std::chrono::milliseconds wait, const std::string& status,
                      const std::vector<std::string>& holds) {
    auto call = call_after_coder_hangs(deadline_secs, wait);
    CHECK(call["status"] == status);
    const std::string out = output_of(call);
    INFO(out);
    for (const auto& h : holds) CHECK(out.find(h) != std::string::npos);
    CHECK(out.find("busy") == std::string::npos);
  }
};

} // namespace

TEST_CASE_METHOD(faults_fixture, "a held call whose callee stops answering ends unreachable, named as not answering",
                 "[sim][formation][faults]") {
  hung_call_ends(60, 30s, "unreachable", {"coder stopped answering while it held the task", "timed out"});
  CHECK(launch_task("lead").answer.find("coder stopped answering") != std::string::npos);
}

TEST_CASE_METHOD(faults_fixture, "a call deadline over a callee that stopped answering ends timed_out, never busy",
                 "[sim][formation][faults]") {
  hung_call_ends(10, 15s, "timed_out",
                 {"coder took the task but did not finish it within the call deadline of 10 s",
                  "its door stopped answering (timed out)"});
}

TEST_CASE_METHOD(formation_fixture, "a callee that answers no offer is named as not answering, not as busy",
                 "[sim][formation][faults]") {
  // The coder is stopped before the lead's call reaches it: the offers get no answer at all.
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{think_ms: 1000, call: {member: coder, task: x}}, "
                                        "{reply: 'Lead got: {{answer.coder}}'}]}\n",
                              "capabilities: {network: {allow: [localhost]}}\nlifecycle: {delegation_deadline_secs: 60}\n")},
          {"coder", slow_coder}},
         {{"lead", {"coder"}}}, "go");
  anon_send(spawner, hang_atom_v, std::string("coder"));
  run_for(30s);
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["status"] == "unreachable");
  const std::string out = output_of(calls[0]);
  INFO(out);
  CHECK(out.find("coder's door did not answer twice in a row (timed out") != std::string::npos);
  CHECK(out.find("busy") == std::string::npos);
  CHECK(events("lead", "member_call_busy").empty());
}

TEST_CASE_METHOD(formation_fixture, "a callee killed mid-call: the caller names the refused connection, the launcher "
                                    "records the member and ends the formation with 69",
                 "[sim][formation][faults]") {
  launch({{"lead", lead_with_deadline(600)}, {"coder", slow_coder}}, {{"lead", {"coder"}}}, "go");
  run_for(1s);
  REQUIRE(events("lead", "member_call_start").size() == 1);
  anon_send(spawner, KillMember{"coder"});
  run_for(10s);
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["status"] == "unreachable");
  CHECK(output_of(calls[0]) == "the connection to coder's door was refused: coder stopped running while it held the task");
  CHECK(launch_task("lead").answer.find("the connection to coder's door was refused") != std::string::npos);
  auto* exited = progress_event("member_exited");
  REQUIRE(exited);
  CHECK(exited->member == "coder");
  CHECK(exited->exit_code == 137);
  CHECK(exited->detail.find("member 'coder' was killed by signal 9 (SIGKILL) while the formation ran") != std::string::npos);
  CHECK(exit_code() == member_fault_exit_code);
  CHECK(progress_event("ended")->detail.find("member 'coder' was killed by signal 9") != std::string::npos);
}

TEST_CASE_METHOD(formation_fixture, "a peer that dies while the formation idles ends it with 69 after the settle time",
                 "[sim][formation][faults]") {
  launch({{"lead", entry_yaml("lead-c", relay_lead)}, {"coder", slow_coder}}, {{"lead", {"coder"}}});
  run_for(1s);
  REQUIRE(progress_event("entry"));
  anon_send(spawner, KillMember{"coder"});
  sched.run();
  REQUIRE(progress_event("member_exited"));
  CHECK(progress_event("ended") == nullptr); // still serving while calls in flight are named
  run_for(6s);
  CHECK(exit_code() == member_fault_exit_code);
  auto* ended = progress_event("ended");
  REQUIRE(ended);
  CHECK(ended->detail == "member 'coder' was killed by signal 9 (SIGKILL) while the formation ran");
}

TEST_CASE_METHOD(formation_fixture, "a callee that ends as its lifecycle says is no fault, a later call names it as ended",
                 "[sim][formation][faults]") {
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: coder, task: one}}, "
                                        "{think_ms: 1000, call: {member: coder, task: two}}, {reply: 'second: {{answer.coder}}'}]}\n")},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{reply: 'did {{task}}'}]}\n",
                                "{task_acceptance: single, after_task: exit}")}},
         {{"lead", {"coder"}}}, "go");
  run_for(5s);
  auto* ended_member = progress_event("member_ended");
  REQUIRE(ended_member);
  CHECK(ended_member->member == "coder");
  CHECK(progress_event("member_exited") == nullptr);
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["status"] == "completed");
  CHECK(calls[1]["status"] == "unreachable");
  CHECK(output_of(calls[1]).find("coder has ended as its lifecycle says (after_task: exit)") != std::string::npos);
  CHECK(events("coder", "a2a_task_received").size() == 1); // nothing was sent for the second call
  CHECK(exit_code() == 0); // the entry's own code: no fault
}

TEST_CASE_METHOD(formation_fixture, "a peer its group's limit ended is named with the limit's code and ends the formation",
                 "[sim][formation][faults]") {
  launch({{"lead", entry_yaml("lead-c", relay_lead)}, {"coder", slow_coder}}, {{"lead", {"coder"}}});
  run_for(1s);
  REQUIRE(progress_event("entry"));
  anon_send(launcher, MemberExited{"coder", 137, "", "E-LIM-001: the kernel ended the runtime of member 'coder'"});
  sched.run();
  auto* exited = progress_event("member_exited");
  REQUIRE(exited);
  CHECK(exited->detail.find("member 'coder' was killed by signal 9 (SIGKILL) while the formation ran "
                            "(E-LIM-001: the kernel ended the runtime of member 'coder')") != std::string::npos);
  run_for(6s);
  CHECK(exit_code() == member_fault_exit_code);
  REQUIRE(progress_event("ended"));
  CHECK(progress_event("ended")->detail.find("(E-LIM-001:") != std::string::npos);
}
