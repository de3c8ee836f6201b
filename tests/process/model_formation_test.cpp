// Formations whose members are real `transport: http` models, driven end to end by the replay
// server's scenarios (tests/models/fixtures/scenarios.json; docs/models.md): an answer
// through call-member, its held tool result and the one continuation with the callee's fenced
// answer; a busy callee (the model is told, the runtime keeps offering, the answer still
// comes); a peer that ends without an answer; 429 then success (Retry-After honoured); 500
// until the retries run out (E-MOD-021 with a Fix, the member keeps serving); a server that
// hangs (request_timeout_secs ⇒ E-MOD-002); a stream cut mid-way (E-MOD-031); a wrong key
// (E-MOD-010, and the key appears nowhere: outputs, traces, running records).
// Every launch carries --deadline, so a failure ends the formation instead of hanging.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "capsule_folder.hpp"
#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "model_replay.hpp"
#include "run_command.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The lead calls the coder with its whole task, says it waits, then answers with what came.
std::string lead_answer(const std::string& task) { return "Lead says: coder said: coder did: " + task; }

// The launch ended 0 with the lead's relay of coder's answer to `task` on stdout.
void lead_answered(const Ran& r, const std::string& task) {
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == lead_answer(task) + "\n");
}

std::string state_of(const json& r) { return r.value("state", ""); }

std::vector<json> for_task(const std::vector<json>& rs, const std::string& task) {
  std::vector<json> out;
  for (const auto& r : rs)
    if (task_of(r) == task) out.push_back(r);
  return out;
}

// The pair with the lead's model `lead_model` answers "add a flag" as the lead model does: what that
// model was asked, REQUIREd to be `n` requests.
std::vector<json> asked_for_answer(ModelFormation& m, const std::string& lead_model, std::size_t n) {
  m.lead_and_coder(lead_model);
  lead_answered(m.run_task("add a flag"), "add a flag");
  auto lead = m.replay.requests_of(lead_model);
  REQUIRE(lead.size() == n);
  return lead;
}

// After a failed task the member keeps serving: the next task is answered.
void keeps_serving(ServingPair& p) {
  json next = send_json(p.m.f, p.s->id(), "add a flag");
  INFO(next.dump());
  CHECK(next["state"] == "completed");
  CHECK(next["answer"] == lead_answer("add a flag"));
}

// A failed task's text names its code and has a Fix line.
void failed_with(const json& answer, const std::string& code) {
  INFO(answer.dump());
  CHECK(answer["state"] == "failed");
  const std::string text = answer.value("answer", "");
  CHECK(text.find(code) != std::string::npos);
  CHECK(text.find("Fix") != std::string::npos);
}

} // namespace

TEST_CASE("http models: the lead calls the coder and answers with its fenced answer", "[process][models]") {
  ModelFormation m;
  m.lead_and_coder("lead", "", "coder", "  stream: false\n"); // the lead streamed (the default), the coder plain
  Ran r = m.run_task("add a flag");
  lead_answered(r, "add a flag");

  // The lead: the task, then the tool result of its call in the same turn, then the continuation.
  auto lead = m.replay.requests_of("lead");
  REQUIRE(lead.size() == 3);
  CHECK(state_of(lead[0]) == "task");
  CHECK(state_of(lead[1]) == "tool_results");
  CHECK(state_of(lead[2]) == "continuation");
  for (const auto& q : lead) {
    CHECK(task_of(q) == "add a flag");
    CHECK(q["body"]["model"] == "lead");
    CHECK(q["body"]["stream"] == true);
    CHECK(q["body"]["tool_choice"] == "auto");
    CHECK(q["body"]["messages"][0]["role"] == "system");
    CHECK(q["authorization"] == "none"); // no key for a loopback endpoint without api_key
    bool offers_call = false;
    for (const auto& t : q["body"]["tools"])
      if (t["function"]["name"] == "call-member") {
        offers_call = true;
        CHECK(t["function"]["parameters"]["properties"]["member"]["enum"] == json::array({"coder"}));
      }
    CHECK(offers_call);
  }
  // The tool result answers the call by its id, at once: the call is held.
  const json& msgs = lead[1]["body"]["messages"];
  REQUIRE(msgs.size() >= 2);
  const json& call = msgs[msgs.size() - 2];
  CHECK(call["role"] == "assistant");
  REQUIRE(call["tool_calls"].size() == 1);
  CHECK(call["tool_calls"][0]["function"]["name"] == "call-member");
  CHECK(json::parse(call["tool_calls"][0]["function"]["arguments"].get<std::string>()) ==
        json({{"member", "coder"}, {"task", "add a flag"}}));
  CHECK(msgs.back()["role"] == "tool");
  CHECK(msgs.back()["tool_call_id"] == call["tool_calls"][0]["id"]);
  // The continuation: one user message, the coder's answer fenced as coming from it.
  const std::string cont = last_message(lead[2])["content"];
  CHECK(cont.find("<untrusted-content source=member:coder>\ncoder did: add a flag\n</untrusted-content>") !=
        std::string::npos);
  CHECK(texts_of(lead[2], "user").size() == 2);

  // The coder: one request, plain, offered no call-member (it has no callees).
  auto coder = m.replay.requests_of("coder");
  REQUIRE(coder.size() == 1);
  CHECK(coder[0]["body"]["stream"] == false);
  CHECK(task_of(coder[0]) == "add a flag");
  const json& body = coder[0]["body"];
  if (body.contains("tools") && body["tools"].is_array())
    for (const auto& t : body["tools"]) CHECK(t["function"]["name"] != "call-member");

  auto traces = m.f.traces(formation_id_in(r.err));
  REQUIRE(traces.size() == 2);
  bool called = false;
  for (const auto& e : traces["lead"])
    if (e.value("event_type", "") == "member_call" && e.value("member", "") == "coder")
      called = e.value("status", "") == "completed";
  CHECK(called);
}

TEST_CASE("http models: a busy callee is offered again until it takes the task", "[process][models]") {
  ServingPair p("lead", "", "coder-gated", "{task_acceptance: single, after_task: sleep}");
  // The coder holds a task of its own, its model's answer held by the replay server's gate.
  LaunchedMur occupy({MUR_BINARY, "send", p.coder_session(), "occupy the coder", "--json"}, p.m.f.env);
  REQUIRE(!p.m.replay.await_request([](const json& q) { return task_of(q) == "occupy the coder"; }).is_null());

  LaunchedMur task({MUR_BINARY, "send", p.s->id(), "add a flag", "--json"}, p.m.f.env);
  // The lead's model hears at once that the coder is busy (and that the runtime keeps offering).
  json told = p.m.replay.await_request([](const json& q) {
    return q.value("entry", "") == "lead" && last_message(q).value("role", "") == "tool" &&
           contains_ci(last_message(q).value("content", ""), "busy");
  });
  REQUIRE(!told.is_null());
  CHECK(p.m.replay.requests_of("coder-gated").size() == 1); // nothing reached the coder's model yet

  p.m.replay.release("coder");
  json mine = json::parse(occupy.read_line(), nullptr, false);
  CHECK(mine["answer"] == "coder did: occupy the coder");
  json answer = json::parse(task.read_line(), nullptr, false);
  INFO(answer.dump());
  CHECK(answer["state"] == "completed");
  CHECK(answer["answer"] == lead_answer("add a flag"));
  CHECK(task.wait() == 0);
  auto lead = for_task(p.m.replay.requests_of("lead"), "add a flag");
  REQUIRE(!lead.empty());
  CHECK(state_of(lead.back()) == "continuation");
}

TEST_CASE("http models: a peer ends without an answer and its caller is told plainly", "[process][models]") {
  ModelFormation m;
  m.capsule("lead", "lead");
  m.capsule("coder", "refuser");
  m.capsule("reviewer", "coder");
  m.roster({"lead", "coder", "reviewer"}, {{"lead", "coder"}, {"coder", "reviewer"}});
  Ran r = m.run_task("drop the table");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("Lead says: coder said: ", 0) == 0);

  auto refuser = m.replay.requests_of("refuser");
  REQUIRE(refuser.size() == 1); // accepted: the coder's task ended there
  CHECK(state_of(refuser[0]) == "task");
  CHECK(m.replay.requests_of("coder").empty()); // the reviewer was never asked

  auto lead = m.replay.requests_of("lead");
  REQUIRE(!lead.empty());
  CHECK(state_of(lead.back()) == "continuation");
  const std::string cont = last_message(lead.back())["content"];
  INFO(cont);
  CHECK(cont.find("<untrusted-content source=member:coder>") != std::string::npos);
  CHECK(cont.find("refuser will not do 'drop the table' without a human") != std::string::npos);
  CHECK(cont.find("No answer came from: coder") != std::string::npos);
}

TEST_CASE("http models: bad tool calls in one response are tool errors the model sees beside the good one",
          "[process][models]") {
  ModelFormation m;
  auto lead = asked_for_answer(m, "lead-confused", 3);
  CHECK(state_of(lead[1]) == "tool_results");
  // Four calls in one response: arguments that are not JSON, an unknown tool, a member outside
  // the enum, then a good call. Each gets its own result, by its id, in the order made.
  const json& msgs = lead[1]["body"]["messages"];
  REQUIRE(msgs.size() >= 5);
  const json& made = msgs[msgs.size() - 5];
  REQUIRE(made["role"] == "assistant");
  REQUIRE(made["tool_calls"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    const json& result = msgs[msgs.size() - 4 + i];
    INFO(result.dump());
    CHECK(result["role"] == "tool");
    CHECK(result["tool_call_id"] == made["tool_calls"][i]["id"]);
    const std::string text = result.value("content", "");
    CHECK(contains_ci(text, "error") == (i < 3));
  }
  CHECK(msgs[msgs.size() - 3].value("content", "").find("make-coffee") != std::string::npos);
  CHECK(msgs[msgs.size() - 2].value("content", "").find("nobody") != std::string::npos);
  CHECK(m.replay.requests_of("coder").size() == 1); // only the good call reached a member
}

TEST_CASE("http models: 429 with Retry-After and then the answer", "[process][models]") {
  ModelFormation m;
  auto lead = asked_for_answer(m, "lead-429", 4);
  CHECK(lead[0]["status"] == 429);
  CHECK(state_of(lead[1]) == "task"); // the same request again
  CHECK(lead[1]["body"]["messages"] == lead[0]["body"]["messages"]);
  // Retry-After: 2 is honoured (the first backoff without it would be 1 s): the retry comes no
  // sooner than two seconds after the 429 was sent. A lower bound the runtime keeps, not a speed;
  // 100 ms of it are left for the replay server's own note of its last byte on a busy machine.
  CHECK(lead[1]["arrived_ms"].get<double>() - lead[0]["last_byte_ms"].get<double>() >= 1900.0);
}

TEST_CASE("http models: 500 until the retries run out fails the task with E-MOD-021 and the member keeps serving",
          "[process][models]") {
  ServingPair p("lead-faults", "", "coder");
  failed_with(send_json(p.m.f, p.s->id(), "please [500]"), "E-MOD-021");
  auto tried = for_task(p.m.replay.requests_of("lead-faults"), "please [500]");
  CHECK(tried.size() > 1); // retried, then given up
  for (const auto& q : tried) CHECK(q["status"] == 500);
  keeps_serving(p);
}

TEST_CASE("http models: a server that never answers fails the task with E-MOD-002 after request_timeout_secs",
          "[process][models]") {
  ServingPair p("lead-faults", "  request_timeout_secs: 2\n", "coder");
  failed_with(send_json(p.m.f, p.s->id(), "please [hang]"), "E-MOD-002");
  CHECK(!for_task(p.m.replay.requests_of("lead-faults"), "please [hang]").empty());
  keeps_serving(p);
}

TEST_CASE("http models: a stream cut mid-way fails the task with E-MOD-031", "[process][models]") {
  ServingPair p("lead-faults", "", "coder");
  failed_with(send_json(p.m.f, p.s->id(), "please [cut]"), "E-MOD-031");
  auto tried = for_task(p.m.replay.requests_of("lead-faults"), "please [cut]");
  REQUIRE(!tried.empty());
  CHECK(tried[0]["body"]["stream"] == true);
  keeps_serving(p);
}

TEST_CASE("http models: a wrong key fails with E-MOD-010 and is never shown while the right one is sent",
          "[process][models]") {
  const std::string wrong = "wrong-key-5d1b-c0ffee-93a7";
  ModelFormation m;
  Ran r = failed_keeping_key(m, "lead-keyed", wrong, "E-MOD-010");
  INFO(r.err);
  CHECK(m.replay.requests().dump().find(wrong) == std::string::npos);
  auto lead = m.replay.requests_of("lead-keyed");
  REQUIRE(!lead.empty());
  for (const auto& q : lead) {
    CHECK(q["authorization"] == "bearer");
    CHECK(q["status"] == 401);
  }

  Ran ok = m.run_task_with_key("add a flag", "replay-right-key");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == lead_answer("add a flag") + "\n");
  CHECK(ok.err.find("replay-right-key") == std::string::npos);
  CHECK(m.f.files_containing("replay-right-key").empty());
}

// This machine's first IPv4 address that is not loopback ("" when it has none).
std::string lan_address() {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string found;
  for (ifaddrs* a = all; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_LOOPBACK)) continue;
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    found = text;
  }
  ::freeifaddrs(all);
  return found;
}

TEST_CASE("http models: plain http to a server off this machine runs only with allow_insecure_http, and warns W-NET-001",
          "[process][models][isolation]") {
  const std::string lan = lan_address();
  if (lan.empty()) {
    WARN("this machine has no IPv4 address besides loopback: nothing to test");
    return;
  }
  // Port 9 (discard) is closed here: the member reaches for it and is refused by the host itself.
  const std::string manifest = "name: lan\nversion: 1.0.0\ninference:\n  transport: http\n  endpoint: 'http://" + lan +
                               ":9/v1'\n  model: m\n  api_key: ${MUR_TEST_LAN_KEY}\n";
  CapsuleFolder refused(manifest);
  refused.env["MUR_TEST_LAN_KEY"] = "lan-key-71f";
  Ran no = run_command(refused.run_argv({"--task", "hello"}), refused.env);
  INFO(no.out << no.err);
  CHECK(no.exit_code != 0);
  CHECK(no.out.find("E-MAN-002") != std::string::npos); // --json: the error is on stdout
  CHECK(no.out.find("allow_insecure_http: true") != std::string::npos);

  CapsuleFolder allowed(manifest + "  allow_insecure_http: true\n  request_timeout_secs: 5\n");
  allowed.env["MUR_TEST_LAN_KEY"] = "lan-key-71f";
  Ran yes = run_command(allowed.run_argv({"--task", "hello"}), allowed.env);
  INFO(yes.out << yes.err);
  CHECK(yes.err.find("warning W-NET-001: lan: inference.endpoint is plain http:// to " + lan) != std::string::npos);
  CHECK(yes.err.find("E-MAN-002") == std::string::npos);
  CHECK((yes.out + yes.err).find("E-MOD-") != std::string::npos); // it was called, and could not be reached
  CHECK((yes.out + yes.err).find("lan-key-71f") == std::string::npos);
  Ran doctor = run_command({MUR_BINARY, "doctor", allowed.folder.path}, allowed.env);
  CHECK(doctor.out.find("W-NET-001") != std::string::npos);
}

// Example `name` as a user would run it, but against this test's own replay server: its
// capsules (with whatever files they hold) are copied, each http endpoint (the port
// scripts/fake-model.sh is started on in its README) pointed at the server, and installed; its
// roster goes to the project, and `mur doctor` must pass on it.
void install_example(ModelFormation& m, const std::string& name) {
  const std::string example = std::string(MUR_SOURCE_DIR) + "/examples/" + name;
  for (const auto& e : fs::directory_iterator(example + "/capsules")) {
    const std::string dir = m.capsules.path + "/" + e.path().filename().string();
    fs::create_directories(dir);
    std::string manifest = read_bytes((e.path() / "murmur.yaml").string());
    const std::string fixed = "http://127.0.0.1:18080/v1";
    if (const auto at = manifest.find(fixed); at != std::string::npos) manifest.replace(at, fixed.size(), m.replay.endpoint());
    else CHECK(manifest.find("transport: http") == std::string::npos); // every http member is pointed here
    std::ofstream(dir + "/murmur.yaml") << manifest;
    for (const auto& extra : fs::directory_iterator(e.path()))
      if (extra.path().filename() != "murmur.yaml")
        fs::copy(extra.path(), fs::path(dir) / extra.path().filename(), fs::copy_options::recursive);
    m.f.install(dir);
  }
  fs::copy_file(example + "/roster.yaml", m.f.project.path + "/roster.yaml", fs::copy_options::overwrite_existing);
  Ran doctor = run_command({MUR_BINARY, "doctor", m.f.project.path}, m.f.env);
  INFO(doctor.out << doctor.err);
  CHECK(doctor.exit_code == 0);
  CHECK(doctor.out.find("All checks passed.") != std::string::npos);
}

TEST_CASE("examples/models answers offline against the replay server", "[process][models]") {
  ModelFormation m;
  install_example(m, "models");
  Ran r = m.run_task("add a --dry-run flag");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == lead_answer("add a --dry-run flag") + "\n");
}

TEST_CASE("examples/tools: the coder writes its note through its own filesystem server and the reviewer is shown it",
          "[process][models][tools]") {
  const std::string server = std::string(MUR_SOURCE_DIR) +
                             "/examples/tools/capsules/coder/node_modules/@modelcontextprotocol/server-filesystem";
  INFO("the example's server is installed by npm ci in examples/tools/capsules/coder (scripts/test.sh does it)");
  REQUIRE(fs::exists(server + "/dist/index.js"));
  ModelFormation m;
  install_example(m, "tools");
  Ran doctor = run_command({MUR_BINARY, "doctor", m.f.project.path}, m.f.env);
  CHECK(doctor.out.find("  tools of coder: files__read_text_file, files__write_file\n") != std::string::npos);
  Ran r = m.run_task("remember the milk");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "reviewer read: coder wrote note.txt, which reads: remember the milk\n");
  std::vector<std::string> notes; // in the coder's own directory, and nowhere else
  for (const std::string& root : {m.f.home.path, m.f.project.path})
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().filename() == "note.txt") notes.push_back(e.path().string());
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("/coder/work/note.txt") != std::string::npos);
  CHECK(read_bytes(notes[0]) == "remember the milk");
}
