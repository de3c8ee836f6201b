// trace.capture: content — a task's end sends its whole transcript to the trace port with the
// task_end that names it by sha256; meta (the default) sends neither.
#include "task_scene.hpp"

#include "messages/vocabulary/sha256.hpp"

using namespace task_scene;

TEST_CASE_METHOD(scene, "capture content: task_end names by sha256 the transcript blob sent with it", "[task][capture]") {
  capture = TraceCapture::content;
  start(script({call({{"coder", "write code for {{task}}"}}), reply("coder said: {{answer.coder}}")}));
  end_call("coder", "completed", "int main() {}");
  CHECK(finished().state == TaskState::completed);
  REQUIRE(blobs().size() == 1);
  const json end = events("task_end").at(0);
  CHECK(end["transcript_sha256"] == sha256_hex(blobs()[0]));
  CHECK(end["transcript_bytes"] == blobs()[0].size());
  CHECK(event_types().back() == "task_end"); // the blob travels with its event, nothing after it
  const json doc = json::parse(blobs()[0]);
  CHECK(doc["task_id"] == "tsk_lead");
  CHECK(doc["member"] == "lead");
  const json& ms = doc["messages"];
  REQUIRE(ms.size() == 6);
  CHECK(ms[0]["role"] == "system");
  CHECK(ms[1] == json{{"role", "user"}, {"content", "build the thing"}});
  CHECK(ms[2]["role"] == "assistant");
  CHECK(ms[2]["tool_calls"][0]["name"] == "call-member");
  CHECK(ms[3]["role"] == "tool");
  CHECK(ms[3]["tool_call_id"] == ms[2]["tool_calls"][0]["id"]);
  CHECK(ms[3]["content"].get<std::string>().find("coder is now working on this call") != std::string::npos);
  CHECK(ms[4]["role"] == "user"); // the continuation that delivers the answer
  CHECK(ms[4]["content"].get<std::string>().find("int main() {}") != std::string::npos);
  CHECK(ms[5]["role"] == "assistant");
  CHECK(ms[5]["content"].get<std::string>().rfind("coder said: ", 0) == 0);
}

TEST_CASE_METHOD(scene, "capture meta (the default) and none: no blob, task_end names none", "[task][capture]") {
  SECTION("meta") { capture = TraceCapture::meta; }
  SECTION("none") { capture = TraceCapture::none; }
  start(script({reply("hello")}));
  CHECK(finished().state == TaskState::completed);
  CHECK(blobs().empty());
  CHECK_FALSE(events("task_end").at(0).contains("transcript_sha256"));
}
