// A whole formation answers end to end: lead → coder → reviewer, three script members.
#include "formation_fixture.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

TEST_CASE_METHOD(formation_fixture, "a three-member chain answers end to end", "[sim][formation]") {
  launch({{"lead", entry_yaml("lead-c", "inference: {turns: [{call: {member: coder, task: 'Write: {{task}}'}}, "
                                        "{reply: 'Lead: {{answer.coder}}'}]}\n")},
          {"coder", callee_yaml("coder-c", "inference: {turns: [{call: {member: reviewer, task: 'Review: {{task}}'}}, "
                                           "{reply: 'Coder done; {{answer.reviewer}}'}]}\n")},
          {"reviewer", callee_yaml("reviewer-c", "inference: {turns: [{think_ms: 30, reply: 'Approved ({{task}})'}]}\n")}},
         {{"lead", {"coder"}}, {"coder", {"reviewer"}}}, "add a flag");
  run_for(2s);

  auto* ended = progress_event("ended");
  REQUIRE(ended);
  CHECK(ended->exit_code == 0);

  auto lead_end = events("lead", "task_end");
  REQUIRE(lead_end.size() == 1);
  CHECK(lead_end[0]["exit_status"] == "ok");
  auto calls = events("lead", "member_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["member"] == "coder");
  CHECK(calls[0]["status"] == "completed");
  CHECK(calls[0]["delivered"] == true);
  CHECK(calls[0]["output"].get<std::string>().find("Approved (Review: Write: add a flag)") != std::string::npos);

  auto start = events("coder", "session_start");
  REQUIRE(start.size() == 1);
  CHECK(start[0]["formation_member"] == "coder");
  CHECK(start[0]["formation_callees"] == nlohmann::json::array({"reviewer"}));
  CHECK(events("reviewer", "a2a_task_received").at(0)["caller_member"] == "coder");
  for (const char* m : {"lead", "coder", "reviewer"}) {
    INFO(m);
    auto s = events(m, "session_start");
    REQUIRE(s.size() == 1);
    CHECK(s[0]["formation_id"] == ended->formation_id);
    CHECK(events(m, "session_end").size() == 1);
  }
  // Peers end because the formation ended: their lifelines closed.
  CHECK(events("coder", "formation_ended").size() == 1);
  CHECK(events("reviewer", "formation_ended").size() == 1);
  CHECK(events("lead", "formation_ended").empty()); // the entry ended on its own, before the lifelines closed
}
