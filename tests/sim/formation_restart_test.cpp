// Restarts (roster `restart:`, docs/roster.md §Restarts), in whole simulated formations: a peer with restarts
// left that dies is started again under its name as a fresh session — the call it held is named
// as lost, the next call reaches the new session, its callers learn its new door; once its budget
// is spent its death ends the formation with 69 as before. A serving entry that dies is named,
// and restarted when its budget allows; with none the formation ends with its code.
#include "formation_fixture.hpp"

#include "actors/lifeline.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

// A coder that takes 2 s per task: killed at 1 s, it dies holding the first.
const std::string coder_2s = callee_yaml("coder-c", "inference: {turns: [{think_ms: 2000, reply: 'did {{task}}'}]}\n");

std::vector<FormationProgress> of_kind(formation_fixture& f, const std::string& event) {
  std::vector<FormationProgress> out;
  for (const auto& p : f.progress_lines())
    if (to_string(p.event) == event) out.push_back(p);
  return out;
}

} // namespace

TEST_CASE_METHOD(formation_fixture, "a peer with restarts left killed mid-call: the held call is named lost, the next "
                                    "call is answered by its new session and the formation goes on",
                 "[sim][formation][restart]") {
  restarts["coder"] = RestartPolicy{3, 60s};
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: coder, task: one}}, "
                                        "{call: {member: coder, task: two}}, {reply: 'second: {{answer.coder}}'}]}\n",
                              "capabilities: {network: {allow: [localhost]}}\nlifecycle: {delegation_deadline_secs: 600}\n")},
          {"coder", coder_2s}},
         {{"lead", {"coder"}}}, "go");
  run_for(1s);
  REQUIRE(events("lead", "member_call_start").size() == 1);
  const std::string first_session = of_kind(*this, "ready").at(0).session_id;
  anon_send(spawner, KillMember{"coder"});
  run_for(10s);

  auto exited = of_kind(*this, "member_exited");
  REQUIRE(exited.size() == 1);
  CHECK(exited[0].detail.find("member 'coder' was killed by signal 9 (SIGKILL) while the formation ran") != std::string::npos);
  CHECK(exited[0].detail.find("restarting it (restart 1 of 3 within 60 s)") != std::string::npos);
  auto restarted = of_kind(*this, "restarted");
  REQUIRE(restarted.size() == 1);
  CHECK(restarted[0].member == "coder");
  CHECK(restarted[0].session_id != first_session);
  CHECK(restarted[0].url != of_kind(*this, "ready").at(0).url);
  CHECK(restarted[0].exit_code == 1); // restarts granted so far

  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["status"] == "unreachable");
  CHECK(calls[0]["output"] == "the connection to coder's door was refused: coder stopped running while it held the task");
  CHECK(calls[1]["status"] == "completed");
  CHECK(launch_task("lead").answer == "second: did two");
  CHECK(events("coder", "a2a_task_received").size() == 1); // the new session's trace: only the second task
  CHECK(exit_code() == 0);                                  // the entry's own code: no fault
}

TEST_CASE_METHOD(formation_fixture, "a peer whose restart budget is spent ends the formation with 69 at its next death",
                 "[sim][formation][restart]") {
  restarts["coder"] = RestartPolicy{1, 60s};
  launch({{"lead", entry_yaml("lead-c", relay_lead)}, {"coder", coder_2s}}, {{"lead", {"coder"}}});
  run_for(1s);
  REQUIRE(progress_event("entry"));
  anon_send(spawner, KillMember{"coder"});
  run_for(2s);
  REQUIRE(of_kind(*this, "restarted").size() == 1);
  CHECK(progress_event("ended") == nullptr);
  run_for(10s); // past the settle time: a restart is no fault
  CHECK(progress_event("ended") == nullptr);

  anon_send(spawner, KillMember{"coder"});
  run_for(10s);
  auto exited = of_kind(*this, "member_exited");
  REQUIRE(exited.size() == 2);
  CHECK(exited[1].detail.find("restarting it") == std::string::npos);
  CHECK(of_kind(*this, "restarted").size() == 1);
  CHECK(exit_code() == member_fault_exit_code);
  CHECK(progress_event("ended")->detail ==
        "member 'coder' was killed by signal 9 (SIGKILL) while the formation ran (its restarts are spent: 1 within 60 s)");
}

TEST_CASE_METHOD(formation_fixture, "a restart budget forgets restarts older than its window",
                 "[sim][formation][restart]") {
  restarts["coder"] = RestartPolicy{1, 5s};
  launch({{"lead", entry_yaml("lead-c", relay_lead)}, {"coder", coder_2s}}, {{"lead", {"coder"}}});
  run_for(1s);
  anon_send(spawner, KillMember{"coder"});
  run_for(6s); // the first restart leaves the window
  anon_send(spawner, KillMember{"coder"});
  run_for(2s);
  CHECK(of_kind(*this, "restarted").size() == 2);
  CHECK(progress_event("ended") == nullptr);
}

TEST_CASE_METHOD(formation_fixture, "a serving entry that is killed is named, and restarted while its budget lasts",
                 "[sim][formation][restart]") {
  restarts["lead"] = RestartPolicy{1, 60s};
  launch({{"lead", entry_yaml("lead-c", relay_lead)}, {"coder", coder_2s}}, {{"lead", {"coder"}}});
  run_for(1s);
  const std::string first_session = progress_event("entry")->session_id;
  anon_send(spawner, KillMember{"lead"});
  run_for(2s);
  auto exited = of_kind(*this, "member_exited");
  REQUIRE(exited.size() == 1);
  CHECK(exited[0].member == "lead");
  CHECK(exited[0].detail.find("the entry member 'lead' was killed by signal 9 (SIGKILL) while the formation ran") !=
        std::string::npos);
  auto restarted = of_kind(*this, "restarted");
  REQUIRE(restarted.size() == 1);
  CHECK(restarted[0].member == "lead");
  CHECK(restarted[0].session_id != first_session);
  CHECK(progress_event("ended") == nullptr);

  // The new entry takes a task and its call reaches the coder.
  DoorRequest again = from_operator(DoorMethod::send_message);
  again.text = "again";
  again.return_immediately = true;
  const DoorReply reply = ask<DoorReply>(door_of("lead"), again);
  REQUIRE(reply.rpc_code == 0);
  CHECK_FALSE(reply.task.busy);
  run_for(5s);
  CHECK(tasks_of("lead").at(0).answer == "Lead got: did Do: again");

  anon_send(spawner, KillMember{"lead"}); // the budget is spent: named, and the formation ends with its code
  run_for(2s);
  CHECK(of_kind(*this, "member_exited").size() == 2);
  CHECK(exit_code() == 137);
}

TEST_CASE_METHOD(formation_fixture, "a serving entry killed without restarts is named and ends the formation with its code",
                 "[sim][formation][restart]") {
  launch({{"lead", entry_yaml("lead-c", relay_lead)}, {"coder", coder_2s}}, {{"lead", {"coder"}}});
  run_for(1s);
  REQUIRE(progress_event("entry"));
  anon_send(spawner, KillMember{"lead"});
  run_for(2s);
  auto* exited = progress_event("member_exited");
  REQUIRE(exited);
  CHECK(exited->member == "lead");
  CHECK(exit_code() == 137);
  CHECK(progress_event("ended")->detail.find("the entry member 'lead' was killed by signal 9") != std::string::npos);
  CHECK(of_kind(*this, "restarted").empty());
}

TEST_CASE_METHOD(formation_fixture, "the lifelines holder closes a member's old end when a restart puts a new one",
                 "[sim][formation][restart]") {
  auto holder = spawn_lifelines(sys);
  auto first = spawn_lifeline_end(sys);
  auto second = spawn_lifeline_end(sys);
  self->monitor(first);
  self->monitor(second);
  self->send(holder, caf::put_atom_v, std::string("coder"), first);
  self->send(holder, caf::put_atom_v, std::string("coder"), second);
  sched.run();
  std::vector<caf::actor_addr> down;
  for (bool more = true; more;)
    self->receive([&](const caf::down_msg& d) { down.push_back(d.source); }, caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
  REQUIRE(down.size() == 1); // the dead process's end, not the new one
  CHECK(down[0] == first.address());
  anon_send_exit(holder, caf::exit_reason::kill);
  sched.run();
}
