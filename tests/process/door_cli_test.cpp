// A session's door as a user outside mur reaches it (docs/spec/choices.md §A usable command
// line), with real processes:
// `mur token NAME --session` prints a declared credential's token from the 0600 running record,
// and that token reaches exactly its scopes (GetTask yes, CancelTask 403 insufficient_scope) and
// appears nowhere else; `--port N` serves the door on 127.0.0.1:N and a second session asking
// for the same port is refused E-RUN-051; the card carries the manifest's description; `mur
// send <the URL mur ps shows>` is called with the session's credential; a busy door's refusal
// is E-SND-004 with a Fix, and `mur send --wait` keeps offering until the door takes the task.
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "door_http.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/wire/door_request.hpp"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string desk_manifest =
  "name: desk\n"
  "version: 1.0.0\n"
  "description: Answers questions at the front desk\n"
  "inference:\n"
  "  transport: script\n"
  "  routes:\n"
  "    - match: \"^slow\"\n"
  "      turns:\n"
  "        - {think_ms: 8000, reply: \"slow done: {{task}}\"}\n"
  "  turns:\n"
  "    - reply: \"desk: {{task}}\"\n"
  "lifecycle: {task_acceptance: single, after_task: sleep}\n"
  "network:\n"
  "  authentication:\n"
  "    scheme: bearer\n"
  "    credentials:\n"
  "      ci: {scopes: [SendMessage, GetTask]}\n";

// The desk capsule's folder, work directory and home.
struct Desk : CapsuleFolder {
  Desk() : CapsuleFolder(desk_manifest) {}
};

json ready_of(LaunchedMur& run) {
  json ready = json::parse(run.read_line(), nullptr, false);
  REQUIRE(ready.is_object());
  REQUIRE(ready.contains("session_id"));
  return ready;
}

// A desk session started and ready: its launch, its session id and its door's url.
struct ReadyDesk {
  Desk d;
  LaunchedMur run{d.run_argv(), d.env};
  std::string ses, url;
  ReadyDesk() {
    const json ready = ready_of(run);
    ses = ready["session_id"];
    url = ready["url"];
  }
  // The session's operator token, as `mur token operator` prints it (without its newline).
  std::string operator_token() const {
    Ran op = run_command({MUR_BINARY, "token", "operator", "--session", ses}, d.env);
    REQUIRE(op.exit_code == 0);
    return op.out.substr(0, op.out.size() - 1);
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Every file under `dir` that holds `needle`.
std::vector<std::string> files_with(const std::string& dir, const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && slurp(e.path().string()).find(needle) != std::string::npos) out.push_back(e.path().string());
  return out;
}

// A loopback port nothing listens on right now (the OS picked it for us and we let it go).
int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

} // namespace

TEST_CASE("mur token: a declared credential reaches exactly its scopes, and is printed nowhere else", "[process][door][cli]") {
  ReadyDesk desk;
  auto& [d, run, ses, url] = desk;

  Ran token = run_command({MUR_BINARY, "token", "ci", "--session", ses}, d.env);
  INFO(token.err);
  REQUIRE(token.exit_code == 0);
  REQUIRE(token.out.rfind("mdt1.", 0) == 0);
  const std::string ci = token.out.substr(0, token.out.size() - 1);
  CHECK(token.out == ci + "\n");
  const std::string record = d.home.path + "/running/" + ses + ".json";
  struct stat st {};
  REQUIRE(::stat(record.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  json rec = json::parse(slurp(record));
  CHECK(rec["credential_tokens"]["ci"] == ci);
  CHECK(rec["operator_token"] != ci);

  mur::DoorRequest send;
  send.method = mur::DoorMethod::send_message;
  send.text = "hello";
  send.message_id = "msg_0192f0c0a1b2c3d4e5f60718293a4b5c";
  DoorHttpReply sent = door_rpc(url, send, ci);
  REQUIRE(sent.status == 200);
  const std::string task_id = sent.body["result"]["task"]["id"];
  mur::DoorRequest get;
  get.method = mur::DoorMethod::get_task;
  get.task_id = task_id;
  DoorHttpReply got = door_rpc(url, get, ci);
  CHECK(got.status == 200);
  CHECK(got.body["result"]["id"] == task_id);
  mur::DoorRequest cancel;
  cancel.method = mur::DoorMethod::cancel_task;
  cancel.task_id = task_id;
  DoorHttpReply canceled = door_rpc(url, cancel, ci);
  CHECK(canceled.status == 403);
  CHECK(canceled.body["error"] == "insufficient_scope");

  Ran other = run_command({MUR_BINARY, "token", "deploy", "--session", ses}, d.env);
  CHECK(other.exit_code == 1);
  CHECK(other.err.find("error[E-TOK-002]: session " + ses + " holds no credential 'deploy' (it holds: operator, ci)") !=
        std::string::npos);
  Ran gone = run_command({MUR_BINARY, "token", "ci", "--session", "ses_0192f0c0a1b2c3d4e5f60718293a4b5c"}, d.env);
  CHECK(gone.exit_code == 1);
  CHECK(gone.err.find("E-TOK-001") != std::string::npos);

  run.signal(SIGTERM);
  CHECK(run.wait() == 0);
  CHECK(run.err().find(ci) == std::string::npos);
  CHECK(files_with(d.work.path, ci).empty());   // not in the trace, result or logs
  CHECK(files_with(d.home.path, ci).empty());   // the record went with the session
  for (const auto* out : {&other.out, &other.err, &gone.err}) CHECK(out->find("mdt1.") == std::string::npos);
}

TEST_CASE("a pinned --port serves the door there, a taken one is E-RUN-051, the card says the description, mur send takes the URL", "[process][door][cli]") {
  Desk d;
  const int port = free_port();
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  // As the README wires two capsules by hand: `mur run --manifest DIR --port N --workdir DIR`.
  LaunchedMur run({MUR_BINARY, "run", "--manifest", d.folder.path, "--port", std::to_string(port), "--workdir", d.work.path,
                   "--json"},
                  d.env);
  const json ready = ready_of(run);
  CHECK(ready["url"] == url);

  DoorHttpReply card = door_http(url + "/.well-known/agent-card.json", "GET", "", "");
  REQUIRE(card.status == 200);
  CHECK(card.body["description"] == "Answers questions at the front desk");

  Desk other;
  Ran taken = run_command(other.run_argv({"--port", std::to_string(port)}), other.env);
  CHECK(taken.exit_code == 1);
  const json e = json::parse(taken.out, nullptr, false);
  REQUIRE(e.is_object());
  CHECK(e["error"]["code"] == "E-RUN-051");
  CHECK(e["error"]["message"].get<std::string>().find("127.0.0.1:" + std::to_string(port)) != std::string::npos);

  // The URL `mur ps` shows is a target: the session's credential goes with it (not a 401).
  Ran ps = run_command({MUR_BINARY, "ps"}, d.env);
  CHECK(ps.out.find(url) != std::string::npos);
  Ran sent = run_command({MUR_BINARY, "send", url, "where is room 4"}, d.env);
  INFO(sent.err);
  CHECK(sent.exit_code == 0);
  CHECK(sent.out == "desk: where is room 4\n");
  Ran local = run_command({MUR_BINARY, "send", "http://localhost:" + std::to_string(port) + "/", "again"}, d.env);
  CHECK(local.exit_code == 0);
  CHECK(local.out == "desk: again\n");

  run.signal(SIGTERM);
  CHECK(run.wait() == 0);
}

TEST_CASE("a busy door refuses mur send with E-SND-004 and a Fix, and --wait keeps offering until taken", "[process][door][cli]") {
  ReadyDesk desk;
  auto& [d, run, ses, url] = desk;
  const std::string op = desk.operator_token();

  // The door holds a slow task once this call returns (returnImmediately).
  mur::DoorRequest slow;
  slow.method = mur::DoorMethod::send_message;
  slow.text = "slow one";
  slow.message_id = "msg_0192f0c0a1b2c3d4e5f60718293a4b5d";
  slow.return_immediately = true;
  DoorHttpReply held = door_rpc(url, slow, op);
  REQUIRE(held.status == 200);

  Ran busy = run_command({MUR_BINARY, "send", ses, "quick one"}, d.env);
  CHECK(busy.exit_code == 1);
  CHECK(busy.err.find("error[E-SND-004]: the door is busy") != std::string::npos);
  CHECK(busy.err.find("Fix: send it again when its task has ended, or add --wait") != std::string::npos);
  Ran busy_json = run_command({MUR_BINARY, "send", ses, "quick one", "--json"}, d.env);
  CHECK(busy_json.exit_code == 1);
  CHECK(json::parse(busy_json.out, nullptr, false)["error"]["code"] == "E-SND-004");

  Ran waited = run_command({MUR_BINARY, "send", ses, "patient one", "--wait"}, d.env);
  INFO(waited.err);
  CHECK(waited.exit_code == 0);
  CHECK(waited.out == "desk: patient one\n");
  CHECK(waited.err.find("the door is busy; offering the task again") != std::string::npos);

  run.signal(SIGTERM);
  CHECK(run.wait() == 0);
}
