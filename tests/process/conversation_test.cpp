// Conversations end to end (lifecycle.conversation, docs/manifest.md §Conversations): a served
// formation whose threaded entry calls a threaded peer; two `mur send --context` in one context —
// the second answer shows the first exchange, the entry's and the peer's (its calls carry one
// context per caller context); a send without --context starts afresh and prints the context it
// ran in. A stateless formation stays stateless in one context. An http member is sent its
// earlier exchange as Chat Completions messages (the replay server records what it received);
// an agent program (transport: process) is handed it as `history` in its turn's JSON.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "model_replay.hpp"
#include "run_command.hpp"
#include "script_chain.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace mur::test;
using json = nlohmann::json;

namespace {

// lead calls a with its task and answers with what a said and how much it remembers itself;
// a answers with what it remembers. `conversation`: both members' lifecycle.conversation.
struct TalkingChain : ScriptChain {
  explicit TalkingChain(const std::string& conversation)
    : ScriptChain("talk" + conversation.substr(0, 1),
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: a, task: \"{{task}}\"}\n"
                  "    - reply: \"lead {{history_count}} | {{answer.a}}\"\n"
                  "lifecycle: {conversation: " + conversation + "}\n" + entry(),
                  "inference:\n  transport: script\n  turns:\n"
                  "    - reply: \"a {{history_count}} [{{history}}]\"\n"
                  "lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep, conversation: " + conversation + "}\n"
                  "exports: {peer_tasks: {accept: true}}\ncapabilities: {network: {allow: [localhost]}}\n"
                  "network: {authentication: {scheme: bearer}}\n",
                  "inference:\n  transport: script\n  turns:\n    - reply: unused\n" + peer()) {}
};

Ran send(const FormationFixture& f, const std::string& frm, const std::string& text, const std::string& context) {
  std::vector<std::string> argv{MUR_BINARY, "send", frm, text};
  if (!context.empty()) argv.insert(argv.end(), {"--context", context});
  Ran r = run_command(argv, f.env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

void stop(const FormationFixture& f, const std::string& frm, LaunchedMur& run) {
  Ran stopped = run_command({MUR_BINARY, "stop", frm}, f.env);
  INFO(stopped.out << stopped.err);
  CHECK(stopped.exit_code == 0);
  run.wait();
}

} // namespace

TEST_CASE("a threaded entry continues a context across two mur send, and so does the peer it calls",
          "[process][conversation]") {
  TalkingChain c("threaded");
  LaunchedMur run({MUR_BINARY, "run", "--roster", c.f.project.path, "--json", "--deadline", "120s"}, c.f.env);
  Serving s = serve(run);
  const std::string frm = s.id();

  Ran first = send(c.f, frm, "write the parser", "ctx_talk");
  CHECK(first.out == "lead 0 | a 0 []\n");
  CHECK(first.err.find("context: ctx_talk (mur send --context ctx_talk to continue it, if the member is threaded)") != std::string::npos);

  Ran second = send(c.f, frm, "now the tests", "ctx_talk");
  CHECK(second.out == "lead 1 | a 1 [user: write the parser\nassistant: a 0 []]\n");

  // No --context: a fresh context, printed so that it can be continued.
  Ran fresh = run_command({MUR_BINARY, "send", frm, "unrelated", "--json"}, c.f.env);
  INFO(fresh.out << fresh.err);
  REQUIRE(fresh.exit_code == 0);
  const json j = json::parse(fresh.out, nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["answer"] == "lead 0 | a 0 []");
  const std::string ctx = j.value("context_id", "");
  CHECK(ctx.rfind("ctx_", 0) == 0);
  CHECK(ctx != "ctx_talk");
  CHECK(send(c.f, frm, "more", ctx).out == "lead 1 | a 1 [user: unrelated\nassistant: a 0 []]\n");
  // The first context is where it was.
  CHECK(send(c.f, frm, "and docs", "ctx_talk").out.rfind("lead 2 | a 2 [user: write the parser\n", 0) == 0);
  stop(c.f, frm, run);
}

TEST_CASE("a stateless formation starts every task from nothing, in one context", "[process][conversation]") {
  TalkingChain c("stateless");
  LaunchedMur run({MUR_BINARY, "run", "--roster", c.f.project.path, "--json", "--deadline", "120s"}, c.f.env);
  Serving s = serve(run);
  const std::string frm = s.id();
  CHECK(send(c.f, frm, "write the parser", "ctx_talk").out == "lead 0 | a 0 []\n");
  CHECK(send(c.f, frm, "now the tests", "ctx_talk").out == "lead 0 | a 0 []\n");
  stop(c.f, frm, run);
}

TEST_CASE("http models: a threaded member is sent the earlier exchange of its context as messages",
          "[process][models][conversation]") {
  ModelFormation m;
  m.capsule("solo", "coder", "", "{conversation: threaded}");
  m.capsule("other", "coder");
  m.roster({"solo", "other"}, {{"solo", "other"}});
  LaunchedMur run(m.run_args({"--json", "--deadline", "120s"}), m.f.env);
  Serving s = serve(run);
  const std::string frm = s.id();
  CHECK(send(m.f, frm, "add a flag", "ctx_http").out == "coder did: add a flag\n");
  send(m.f, frm, "and document it", "ctx_http");
  auto asked = m.replay.requests_of("coder");
  REQUIRE(asked.size() == 2);
  // The second request: the system message, the first exchange, then the new task, in order.
  CHECK(texts_of(asked[1], "system").size() == 1);
  CHECK(texts_of(asked[1], "user") == std::vector<std::string>{"add a flag", "and document it"});
  CHECK(texts_of(asked[1], "assistant") == std::vector<std::string>{"coder did: add a flag"});
  CHECK(last_message(asked[1]).value("role", "") == "user");
  CHECK(texts_of(asked[0], "user") == std::vector<std::string>{"add a flag"});
  // Another context starts from the system message and its own task.
  send(m.f, frm, "something else", "ctx_other");
  asked = m.replay.requests_of("coder");
  REQUIRE(asked.size() == 3);
  CHECK(texts_of(asked[2], "user") == std::vector<std::string>{"something else"});
  CHECK(texts_of(asked[2], "assistant").empty());
  stop(m.f, frm, run);
}

TEST_CASE("an agent program of a threaded member is handed the earlier exchange as history", "[process][conversation]") {
  FormationFixture f;
  TempDir capsules;
  const auto write = [&](const std::string& name, const std::string& manifest, const std::string& program) {
    const std::string dir = capsules.path + "/" + name;
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/murmur.yaml") << "name: " << name << "\nversion: 1.0.0\n" << manifest;
    if (!program.empty()) std::ofstream(dir + "/prog.py") << program;
    f.install(dir);
  };
  write("hist-lead",
        "inference:\n  transport: process\n  command: [python3, prog.py]\n"
        "lifecycle: {conversation: threaded}\n" + ScriptChain::entry(),
        "import json, sys\n"
        "turn = json.load(sys.stdin)\n"
        "h = turn.get('history', [])\n"
        "print('saw %d: %s' % (len(h), ' | '.join(m['role'] + ': ' + m['text'] for m in h)), end='')\n");
  write("hist-peer", "inference:\n  transport: script\n  turns:\n    - reply: unused\n" + ScriptChain::peer(), "");
  std::ofstream(f.project.path + "/roster.yaml")
    << "roster_version: 1\nmembers:\n"
       "  - {name: lead, capsule: hist-lead, version: 1.0.0, entry: true}\n"
       "  - {name: peer, capsule: hist-peer, version: 1.0.0}\n"
       "reachability:\n  - {from: lead, to: [peer]}\n";
  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--json", "--deadline", "120s"}, f.env);
  Serving s = serve(run);
  const std::string frm = s.id();
  CHECK(send(f, frm, "one", "ctx_prog").out == "saw 0: \n");
  CHECK(send(f, frm, "two", "ctx_prog").out == "saw 2: user: one | assistant: saw 0: \n");
  CHECK(send(f, frm, "three", "ctx_elsewhere").out == "saw 0: \n");
  stop(f, frm, run);
}
