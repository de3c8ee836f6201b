// The task actor with a chat model (one that is asked again, in the same turn, with its tool
// results): the transcript each request carries — tool results by call id, in call order, the
// continuation with fenced answers — tool errors for whatever the model gets wrong, the
// max_turns accounting and the bound on requests per turn. A scripted chat model stands behind
// the model port: no network, simulated time.
#include "chat_script.hpp"

#include "messages/wire/runtime_tools.hpp"

using namespace task_scene;

TEST_CASE_METHOD(chat_scene, "a tool call is answered in the same turn, the answers come in one continuation",
                 "[task][chat]") {
  play({tools({call_member("c1", "coder", "write the parser")}, "Asking coder."), says("Waiting for coder."),
        says("Coder wrote it: parser done.")});
  // Request 2: same turn, one step on, with c1's result right after the assistant's call.
  REQUIRE(requests().size() == 2);
  CHECK(requests()[1].turn == 0);
  CHECK(requests()[1].step == 1);
  const auto& t1 = transcript(1);
  REQUIRE(t1.size() == 4);
  CHECK(t1[0].role == TranscriptRole::system);
  CHECK(t1[0].content.find("You are \"lead\"") != std::string::npos);
  CHECK(t1[0].content.find("coder, tester") != std::string::npos);
  CHECK(t1[1] == TranscriptMessage::user("build the thing"));
  CHECK(t1[2].role == TranscriptRole::assistant);
  CHECK(t1[2].content == "Asking coder.");
  REQUIRE(t1[2].tool_calls.size() == 1);
  CHECK(t1[2].tool_calls[0].id == "c1");
  CHECK(t1[3].role == TranscriptRole::tool);
  CHECK(t1[3].tool_call_id == "c1");
  CHECK(t1[3].content.find("coder is now working on this call") != std::string::npos);
  CHECK(call_to("coder").text == "write the parser");
  // The turn ended with text while coder works: nothing is asked until its answer arrives.
  CHECK(door_log().finished.empty());
  end_call("coder", "completed", "parser done");
  REQUIRE(requests().size() == 3);
  CHECK(requests()[2].turn == 1);
  CHECK(requests()[2].step == 0);
  const auto& t2 = transcript(2);
  REQUIRE(t2.size() == 6);
  CHECK(t2[4] == TranscriptMessage::assistant("Waiting for coder."));
  CHECK(t2[5].role == TranscriptRole::user);
  CHECK(t2[5].content.find("member:coder") != std::string::npos);
  CHECK(t2[5].content.find("parser done") != std::string::npos);
  const auto& done = finished();
  CHECK(done.state == TaskState::completed);
  CHECK(done.answer == "Coder wrote it: parser done.");
  const auto inference = events("inference");
  REQUIRE(inference.size() == 3);
  CHECK(inference[0]["decision"] == "tool_call");
  CHECK(inference[0]["step"] == 0);
  CHECK(inference[1]["step"] == 1);
  CHECK(inference[1]["decision"] == "end_turn");
  CHECK(inference[2]["turn"] == 1);
  CHECK(inference[2]["model"] == "scripted");
  CHECK(events("task_end").at(0)["turns"] == 2);
}

TEST_CASE_METHOD(chat_scene, "whatever a model gets wrong in its tool calls is a tool error it reads, in call order",
                 "[task][chat]") {
  play({tools({call_member("c1", "coder", "one"), tc("c2", tool_name::call_member, "{not json"),
               tc("c3", "search-web", "{}"), call_member("c4", "boss", "take over"),
               call_member("c5", "coder", "two"), tc("c6", tool_name::call_member, "[1,2]"),
               tc("c7", tool_name::call_member, "{\"member\":\"tester\"}"),
               tc("c8", tool_name::call_member, std::string(200, '[') + std::string(200, ']'))}),
        says("Done asking."), says("All in.")});
  REQUIRE(requests().size() == 2);
  const auto results = tool_results(requests()[1]);
  REQUIRE(results.size() == 8);
  const auto& t = transcript(1);
  for (std::size_t i = 0; i < 8; ++i) CHECK(t[3 + i].tool_call_id == "c" + std::to_string(i + 1));
  CHECK(results[0].find("coder is now working") != std::string::npos);
  CHECK(results[1].find("must be a JSON object") != std::string::npos);
  CHECK(results[2].find("there is no tool named \"search-web\"") != std::string::npos);
  CHECK(results[3].find("\"boss\" is not a member you may call; you may call: coder, tester") != std::string::npos);
  CHECK(results[4].find("has not had its answer delivered yet") != std::string::npos);
  CHECK(results[5].find("must be a JSON object") != std::string::npos);
  CHECK(results[6].find("call-member needs \"member\"") != std::string::npos);
  CHECK(results[7].find("must be a JSON object") != std::string::npos);
  for (std::size_t i = 1; i < 8; ++i) CHECK(results[i].find("othing was sent") != std::string::npos);
  CHECK(egress_log().calls.size() == 1); // only c1 reached the egress
  // The refusals the task made itself are in the trace (bad arguments and unknown tools are the
  // model's mistakes, answered as tool errors only).
  const auto refused = events("call_refused");
  REQUIRE(refused.size() == 2);
  CHECK(refused[0]["member"] == "boss");
  CHECK(refused[0]["cause"] == "not_callable");
  CHECK(refused[1]["member"] == "coder");
  CHECK(refused[1]["cause"] == "call_outstanding");
  end_call("coder", "completed", "one done");
  CHECK(finished().answer == "All in.");
}

TEST_CASE_METHOD(chat_scene, "each continuation costs one of max_turns", "[task][chat]") {
  play({tools({call_member("c1", "coder", "a")}), says("wait"), tools({call_member("c2", "tester", "b")}), says("wait")},
       "operator", 2);
  end_call("coder", "completed", "a done");
  REQUIRE(requests().size() == 4);
  CHECK(requests()[3].turn == 1);
  CHECK(door_log().finished.empty());
  end_call("tester", "completed", "b done"); // a third turn is not left
  const auto& done = finished();
  CHECK(done.state == TaskState::failed);
  CHECK(done.exit_status == TaskExit::max_turns_reached);
  CHECK(done.status_text.find("all 2 model turns") != std::string::npos);
  CHECK(requests().size() == 4);
}

TEST_CASE_METHOD(chat_scene, "a model that never ends its turn fails the task after 16 requests", "[task][chat]") {
  play({tools({tc("x", "search-web", "{}")})});
  CHECK(requests().size() == 16);
  const auto& done = finished();
  CHECK(done.exit_status == TaskExit::max_turns_reached);
  CHECK(done.status_text.find("16 requests in a row without ending its turn") != std::string::npos);
}

TEST_CASE_METHOD(chat_scene, "end-without-answer is a tool: accepted for a member's task, refused for a person's",
                 "[task][chat]") {
  SECTION("a member's task ends without an answer, with the reason") {
    play({tools({tc("e1", tool_name::end_without_answer, end_without_answer_arguments("coder's part is missing"))})},
         "member:boss");
    const auto& done = finished();
    CHECK(done.state == TaskState::failed);
    CHECK(done.no_answer);
    CHECK(done.status_text == "coder's part is missing");
    CHECK(done.exit_status == TaskExit::no_answer);
  }
  SECTION("a person's task: the refusal is the tool result, and the model answers") {
    play({tools({tc("e1", tool_name::end_without_answer, end_without_answer_arguments("no"))}), says("Here is what I have.")});
    REQUIRE(requests().size() == 2);
    CHECK(tool_results(requests()[1]).at(0).find("not sent by a formation member") != std::string::npos);
    REQUIRE(events("end_without_answer_refused").size() == 1);
    CHECK(events("end_without_answer_refused")[0]["reason"] == "no");
    CHECK(finished().answer == "Here is what I have.");
  }
}

TEST_CASE_METHOD(chat_scene, "a model failure fails the task with its code and Fix, streamed text reaches the door",
                 "[task][chat]") {
  SECTION("failure") {
    ModelTurn f;
    f.fails = true;
    f.failure = "E-MOD-021: the model server failed (HTTP 500). Fix: check the model server's own log";
    play({f});
    const auto& done = finished();
    CHECK(done.state == TaskState::failed);
    CHECK(done.status_text == f.failure);
    CHECK(events("inference").at(0)["error"] == f.failure);
  }
  SECTION("streaming") {
    play({says("Paris is the capital.")}, "operator", 10, true);
    REQUIRE(door_log().texts.size() == 2);
    CHECK(door_log().texts[0].fragment + door_log().texts[1].fragment == "Paris is the capital.");
    CHECK(door_log().texts[0].task_id == "tsk_lead");
    CHECK(finished().answer == "Paris is the capital.");
  }
}

TEST_CASE_METHOD(chat_scene, "answers that arrive while the model is still in its turn wait for the turn to end",
                 "[task][chat]") {
  play({tools({call_member("c1", "coder", "a")}), tools({call_member("c2", "tester", "b")}), says("both asked"),
        says("final")});
  // coder answers while the model is being asked again (step 1): nothing is delivered yet.
  REQUIRE(requests().size() == 3);
  end_call("coder", "completed", "a done");
  CHECK(requests().size() == 3);
  end_call("tester", "failed", "");
  REQUIRE(requests().size() == 4);
  const auto& cont = transcript(3).back();
  CHECK(cont.role == TranscriptRole::user);
  CHECK(cont.content.find("a done") != std::string::npos);
  CHECK(cont.content.find("member:tester") != std::string::npos);
  const auto& done = finished();
  CHECK(done.answer.find("final") == 0);
  CHECK(done.answer.find("without answers from tester") != std::string::npos);
}

TEST_CASE_METHOD(chat_scene, "a chat model delegates through the same path as call-member, and the answer is fenced as capsule:NAME",
                 "[task][chat][delegation]") {
  capsules = {"summarizer"};
  play({tools({tc("d1", tool_name::delegate, delegate_arguments("summarizer", "sum the log")),
               tc("d2", tool_name::delegate, delegate_arguments("other", "x")),
               call_member("c1", "coder", "fix it")}),
        says("Waiting."), says("All in.")});
  REQUIRE(requests().size() == 2);
  CHECK(requests()[0].capsules == std::vector<std::string>{"summarizer"});
  CHECK(transcript(0)[0].content.find("delegate tool: summarizer") != std::string::npos);
  const auto& d = call_to("capsule:summarizer");
  CHECK(d.text == "sum the log");
  CHECK(d.call_id.rfind("dlg_", 0) == 0);
  CHECK(call_to("coder").call_id.rfind("mcl_", 0) == 0);
  const auto results = tool_results(requests()[1]);
  REQUIRE(results.size() == 3);
  CHECK(results[0].find("\"capsule\":\"summarizer\"") != std::string::npos);
  CHECK(results[1].find("\"other\" is not a capsule you may delegate to; you may delegate to: summarizer") != std::string::npos);
  CHECK(egress_log().calls.size() == 2);
  end_call("capsule:summarizer", "completed", "summed");
  CHECK(requests().size() == 2); // coder is still out: one continuation for both
  end_call("coder", "completed", "fixed");
  REQUIRE(requests().size() == 3);
  const std::string& cont = transcript(2).back().content;
  CHECK(cont.find("Delegation " + d.call_id + " to capsule:summarizer: completed.") != std::string::npos);
  CHECK(cont.find("<untrusted-content source=capsule:summarizer>\nsummed") != std::string::npos);
  CHECK(cont.find("source=member:coder>\nfixed") != std::string::npos);
  auto cont_event = events("task_continued");
  REQUIRE(cont_event.size() == 1);
  CHECK(cont_event[0]["delegations"] == 1);
  CHECK(cont_event[0]["member_calls"] == 1);
  auto delegation = events("delegation");
  REQUIRE(delegation.size() == 1);
  CHECK(delegation[0]["capsule"] == "summarizer");
  CHECK(delegation[0]["child_task_id"] == "tsk_of_capsule:summarizer");
  CHECK(events("call_refused").at(0)["capsule"] == "other");
  CHECK(finished().answer == "All in.");
}

TEST_CASE_METHOD(chat_scene, "a second delegation to one capsule and a fifth at once are refused, nothing started",
                 "[task][chat][delegation]") {
  capsules = {"c1", "c2", "c3", "c4", "c5"};
  std::vector<ToolCall> calls;
  for (const char* c : {"c1", "c1", "c2", "c3", "c4", "c5"})
    calls.push_back(tc(std::string("d_") + c + std::to_string(calls.size()), tool_name::delegate, delegate_arguments(c, "x")));
  play({tools(calls), says("Waiting."), says("done")});
  CHECK(egress_log().calls.size() == 4);
  const auto results = tool_results(requests().at(1));
  REQUIRE(results.size() == 6);
  CHECK(results[1].find("has not had its answer delivered yet") != std::string::npos);
  CHECK(results[5].find("already has 4 delegations out") != std::string::npos);
  auto refused = events("call_refused");
  REQUIRE(refused.size() == 2);
  CHECK(refused[0]["capsule"] == "c1");
  CHECK(refused[0]["cause"] == "call_outstanding");
  CHECK(refused[1]["capsule"] == "c5");
  CHECK(refused[1]["cause"] == "too_many_children");
  for (const char* c : {"c1", "c2", "c3", "c4"}) end_call(std::string("capsule:") + c, "completed", "ok");
  CHECK(finished().answer == "done");
}
