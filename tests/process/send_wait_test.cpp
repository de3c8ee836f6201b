// How `mur send` waits for a task's answer (docs/spec/choices.md §Command line), with real processes: it
// follows the task over SubscribeToTask as long as the task works, past the length of any one
// stream (MURMUR_SEND_STREAM_SECS made short here: 1 s against a 4 s task, so the wait outlives
// several connections without the test taking 30 s); `--timeout` stops the wait with E-SND-005,
// which names the task, says it goes on, and gives the command that shows its answer — and the
// task then does complete, and that very command shows its answer. A question the task waits on
// is printed with the `mur answer` command (answered here with a prefix of the task id), and a
// session killed under the wait is E-SND-006.
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "door_http.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include "http/a2a_json.hpp"
#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/wire/door_request.hpp"

#include <nlohmann/json.hpp>

#include <csignal>
#include <sstream>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;

namespace {

const std::string slow_manifest =
  "name: slow-desk\n"
  "version: 1.0.0\n"
  "inference:\n"
  "  transport: script\n"
  "  turns:\n"
  "    - {think_ms: 4000, reply: \"slow done: {{task}}\"}\n"
  "lifecycle: {task_acceptance: single, after_task: sleep}\n"
  "network: {authentication: {scheme: bearer}}\n";

struct SlowDesk {
  CapsuleFolder d{slow_manifest};
  LaunchedMur run{d.run_argv(), d.env};
  std::string ses, url;
  SlowDesk() {
    const json ready = json::parse(run.read_line(), nullptr, false);
    REQUIRE(ready.is_object());
    ses = ready["session_id"];
    url = ready["url"];
  }
  std::string operator_token() const {
    Ran op = run_command({MUR_BINARY, "token", "operator", "--session", ses}, d.env);
    REQUIRE(op.exit_code == 0);
    return op.out.substr(0, op.out.size() - 1);
  }
};

// Follows `task_id` at the door until its stream closes (the door closes it when the task has
// ended): the state its last event carried.
std::string state_at_end(const std::string& url, const std::string& token, const std::string& task_id) {
  mur::DoorRequest sub;
  sub.method = mur::DoorMethod::subscribe_to_task;
  sub.task_id = task_id;
  mur::CurlPool pool;
  mur::HttpCall c;
  c.url = url + "/";
  c.body = mur::a2a::request_json("t-follow", sub).dump();
  c.headers = {"Content-Type: application/json", "A2A-Version: 1.0", "Authorization: Bearer " + token};
  c.timeout = std::chrono::milliseconds(0);
  mur::TaskView task;
  c.on_event = [&task](const std::string& data) {
    json doc = json::parse(data, nullptr, false);
    if (doc.is_object() && doc.contains("result")) mur::a2a::apply_stream_event(task, doc["result"]);
  };
  const mur::HttpOutcome done = mur::call_and_wait(pool, std::move(c));
  REQUIRE(done.status == 200);
  return mur::state_word(task.state);
}

// The words of `line` (split on spaces).
std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

} // namespace

TEST_CASE("mur send follows a task past the length of its streams until it answers", "[process][send][wait]") {
  SlowDesk desk;
  auto env = desk.d.env;
  env["MURMUR_SEND_STREAM_SECS"] = "1";
  Ran sent = run_command({MUR_BINARY, "send", desk.ses, "the long one"}, env);
  INFO(sent.err);
  CHECK(sent.exit_code == 0);
  CHECK(sent.out == "slow done: the long one\n");
  // Its streams were each closed after 1 s and the task followed on a new one, said so each time:
  // a 4 s task outlives at least two of them.
  CHECK(sent.err.find("mur send: still waiting after 1s (the task works on; Ctrl-C cancels it, --timeout bounds the wait)\n") !=
        std::string::npos);
  std::size_t renewed = 0;
  for (auto at = sent.err.find("still waiting after"); at != std::string::npos; at = sent.err.find("still waiting after", at + 1))
    ++renewed;
  CHECK(renewed >= 2);
  CHECK(sent.err.find("error") == std::string::npos);

  env["MURMUR_SEND_STREAM_SECS"] = "0";
  Ran bad = run_command({MUR_BINARY, "send", desk.ses, "never sent"}, env);
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("error[E-SND-007]: MURMUR_SEND_STREAM_SECS is '0'") != std::string::npos);
  CHECK(bad.err.find("Fix: unset MURMUR_SEND_STREAM_SECS for the default (600)") != std::string::npos);

  desk.run.signal(SIGTERM);
  CHECK(desk.run.wait() == 0);
}

TEST_CASE("mur send --timeout stops waiting with E-SND-005, the task goes on, and the command it names shows the answer",
          "[process][send][wait]") {
  SlowDesk desk;
  const std::string op = desk.operator_token();
  Ran gave_up = run_command({MUR_BINARY, "send", desk.ses, "the patient one", "--timeout", "1"}, desk.d.env);
  INFO(gave_up.err);
  CHECK(gave_up.exit_code == 1);
  CHECK(gave_up.out.empty());
  const std::string head = "error[E-SND-005]: mur send stopped waiting for task ";
  REQUIRE(gave_up.err.rfind(head, 0) == 0);
  const std::string task_id = gave_up.err.substr(head.size(), 36);
  REQUIRE(task_id.rfind("tsk_", 0) == 0);
  CHECK(gave_up.err.find(task_id + " after 1s (--timeout); the task is working and goes on at the door\n") != std::string::npos);
  const std::string see = "Fix: see its answer once it has ended: ";
  const auto at = gave_up.err.find(see);
  REQUIRE(at != std::string::npos);
  // The command, and the directory to run it in (the session's workdir: the test runs elsewhere).
  const std::string fix = gave_up.err.substr(at + see.size(), gave_up.err.find(';', at) - at - see.size());
  const std::string run_in = " (run in " + desk.d.work.path + ")";
  REQUIRE(fix.size() > run_in.size());
  CHECK(fix.substr(fix.size() - run_in.size()) == run_in);
  const std::string command = fix.substr(0, fix.size() - run_in.size());
  CHECK(command == "mur trace show " + desk.ses + " --full");
  CHECK(gave_up.err.find("cancel it: mur cancel " + task_id) != std::string::npos);

  // The task was left working: it ends completed, and once the session has ended (its trace
  // written whole) the command the Fix gave, where it said, shows the answer.
  CHECK(state_at_end(desk.url, op, task_id) == "completed");
  Ran as_json = run_command({MUR_BINARY, "send", desk.ses, "the quiet one", "--timeout", "1", "--json"}, desk.d.env);
  desk.run.signal(SIGTERM);
  CHECK(desk.run.wait() == 0);
  std::vector<std::string> argv = words_of(command);
  REQUIRE(argv.front() == "mur");
  argv.front() = MUR_BINARY;
  Ran shown = run_command(argv, desk.d.env, desk.d.work.path);
  INFO(shown.err);
  INFO(shown.out);
  CHECK(shown.exit_code == 0);
  CHECK(shown.out.find("slow done: the patient one") != std::string::npos);

  // Under --json the same refusal is one JSON line on stdout.
  CHECK(as_json.exit_code == 1);
  CHECK(as_json.err.empty());
  const json line = json::parse(as_json.out, nullptr, false);
  REQUIRE(line.is_object());
  CHECK(line["error"]["code"] == "E-SND-005");
  const std::string message = line["error"]["message"];
  CHECK(message.find("goes on at the door") != std::string::npos);
}

TEST_CASE("mur send prints the question its task waits on, and waits on until mur answer with a task prefix answers it",
          "[process][send][wait][ids]") {
  CapsuleFolder d("name: asker\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n"
                  "    - ask: \"which colour for {{task}}?\"\n    - reply: \"{{tool_results}}\"\n"
                  "capabilities: {ask_operator: true}\n"
                  "lifecycle: {task_acceptance: single, after_task: sleep}\n"
                  "network: {authentication: {scheme: bearer}}\n");
  LaunchedMur session(d.run_argv(), d.env);
  REQUIRE(json::parse(session.read_line(), nullptr, false).is_object());
  LaunchedMur send({MUR_BINARY, "send", "last", "the bikeshed"}, d.env);
  // The question reaches mur send's stderr as the task starts waiting (a file, read until it shows).
  const std::string asked = "the task waits for your answer: the member asks: which colour for the bikeshed?\nanswer it with: mur answer ";
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (send.err().find(asked) == std::string::npos && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::string err = send.err();
  const auto at = err.find(asked);
  REQUIRE(at != std::string::npos);
  const std::string task_id = err.substr(at + asked.size(), 36);
  REQUIRE(task_id.rfind("tsk_", 0) == 0);
  CHECK(err.find(task_id + " \"\u2026\"\n") != std::string::npos);

  Ran answered = run_command({MUR_BINARY, "answer", task_id.substr(0, 16), "blue"}, d.env); // a prefix of the task id
  INFO(answered.err);
  CHECK(answered.exit_code == 0);
  CHECK(answered.out.find(task_id + "  answered: the member asks: which colour for the bikeshed?") != std::string::npos);
  CHECK(send.read_line() == "The operator answered: blue");
  CHECK(send.wait() == 0);
  session.signal(SIGTERM);
  CHECK(session.wait() == 0);
}

TEST_CASE("a session killed while mur send waits: E-SND-006 says it stopped waiting and what to check", "[process][send][wait]") {
  SlowDesk desk;
  const std::string op = desk.operator_token();
  LaunchedMur send({MUR_BINARY, "send", desk.ses, "the lost one"}, desk.d.env);
  // Once the door holds the task, mur send follows it; then the session is killed.
  mur::DoorRequest list;
  list.method = mur::DoorMethod::list_tasks;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool held = false;
  while (!held && std::chrono::steady_clock::now() < until) {
    const DoorHttpReply r = door_rpc(desk.url, list, op);
    held = r.status == 200 && r.body.contains("result") && !r.body["result"]["tasks"].empty();
    if (!held) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(held);
  desk.run.signal(SIGKILL);
  CHECK(desk.run.wait() == 128 + SIGKILL); // reaped: its running record names a process that is gone
  CHECK(send.wait() == 1);
  INFO(send.err());
  CHECK(send.err().find("error[E-SND-006]: mur send stopped waiting for task tsk_") != std::string::npos);
  CHECK(send.err().find(": it could not follow it again (its session " + desk.ses + " has ended: ") != std::string::npos);
  CHECK(send.err().find("if its session still runs, the task goes on\n") != std::string::npos);
  CHECK(send.err().find("Fix: check that the session still runs: mur ps; see its answer once it has ended: mur trace show " +
                        desk.ses + " --full") != std::string::npos);
}
