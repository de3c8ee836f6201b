// A member asks a person across real processes: b (two calls down) asks, the question surfaces
// at the entry's door, `mur answer frm_… "text"` answers it there, and the answer travels down
// to b through a's call; the entry's answer carries it (docs/ask-operator.md).
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "formation_fixture.hpp"
#include "script_chain.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct AskingChain : ScriptChain {
  AskingChain()
    : ScriptChain("ask",
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: a, task: \"go {{task}}\"}\n"
                  "    - reply: \"lead: {{answer.a}}\"\n" + entry(),
                  "inference:\n  transport: script\n  turns:\n"
                  "    - call: {member: b, task: \"from a\"}\n"
                  "    - reply: \"a: {{answer.b}}\"\n" + peer(),
                  "inference:\n  transport: script\n  turns:\n"
                  "    - ask: \"which colour?\"\n"
                  "    - reply: \"b: {{tool_results}}\"\n" + peer("capabilities: {ask_operator: true}\n")) {}
};

} // namespace

TEST_CASE("mur answer: the question of a member two calls down is answered at the entry", "[process][ask]") {
  AskingChain c;
  LaunchedMur run({MUR_BINARY, "run", "--roster", c.f.project.path, "--task", "now", "--deadline", "60s"}, c.f.env);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string frm;
  while (frm.empty() && std::chrono::steady_clock::now() < until) {
    frm = formation_id_in(run.err());
    if (frm.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE_FALSE(frm.empty());
  // Until the entry serves (E-ANS-001) and the question has come up the chain (E-ANS-002),
  // there is nothing to answer.
  Ran answered;
  while (std::chrono::steady_clock::now() < until) {
    answered = run_command({MUR_BINARY, "answer", frm, "blue", "--json"}, c.f.env);
    if (answered.exit_code == 0) break;
    const bool not_yet = answered.out.find("E-ANS-001") != std::string::npos || answered.out.find("E-ANS-002") != std::string::npos;
    REQUIRE(not_yet);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  INFO(answered.out << answered.err << run.err());
  REQUIRE(answered.exit_code == 0);
  const json j = json::parse(answered.out, nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["answered"] == "b asks: which colour?");
  CHECK(j["task_id"].get<std::string>().rfind("tsk_", 0) == 0);
  CHECK(run.read_line() == "lead: a: b: The operator answered: blue");
  // The terminal of mur run --task was told the question and how to answer it.
  CHECK(run.err().find("[lead] the task waits for your answer: b asks: which colour?\n[lead] answer it with: mur answer " +
                       j["task_id"].get<std::string>() + " \"\u2026\"") != std::string::npos);
  CHECK(run.wait() == 0);
  auto traces = c.f.traces(frm);
  std::size_t asked = 0;
  for (const auto& e : traces["lead"]) asked += e.value("event_type", "") == "input_required";
  CHECK(asked == 1);
}

TEST_CASE("mur answer names what it cannot answer", "[process][ask]") {
  AskingChain c;
  Ran unknown = run_command({MUR_BINARY, "answer", "tsk_0123456789abcdef0123456789abcdef", "blue"}, c.f.env);
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.err.find("E-ANS-001") != std::string::npos);
  CHECK(unknown.err.find("Fix:") != std::string::npos);
}

TEST_CASE("mur run --task at a terminal: the question is asked there and the typed answer goes on", "[process][ask]") {
  CapsuleFolder c("name: asker\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n"
                  "    - ask: \"which colour for {{task}}?\"\n    - reply: \"{{tool_results}}\"\n"
                  "capabilities: {ask_operator: true}\n");
  Ran r = run_command({"/usr/bin/env", "python3", std::string(MUR_SOURCE_DIR) + "/tests/process/at_terminal.py", "blue", MUR_BINARY, "run",
                       "--manifest", c.folder.path, "--workdir", c.work.path, "--task", "the bikeshed"},
                      c.env);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("the task waits for your answer: the member asks: which colour for the bikeshed?") != std::string::npos);
  CHECK(r.out.find("answer> blue") != std::string::npos); // the prompt, and the answer as typed (echoed)
  CHECK(r.out.find("The operator answered: blue") != std::string::npos);
}

TEST_CASE("mur run --roster --task at a terminal: the entry asks there for a question from two calls down", "[process][ask]") {
  AskingChain c;
  Ran r = run_command({"/usr/bin/env", "python3", std::string(MUR_SOURCE_DIR) + "/tests/process/at_terminal.py", "blue", MUR_BINARY,
                       "run", "--roster", c.f.project.path, "--task", "now", "--deadline", "60s"},
                      c.f.env);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // The prompt is the entry's own, on the terminal; the question's line comes through the
  // launcher's console ("[lead] …"), so the two may reach the terminal in either order, the
  // prompt even between the console's prefix and its line. The answer is typed after the prompt.
  CHECK(r.out.find("the task waits for your answer: b asks: which colour?") != std::string::npos);
  CHECK(r.out.find("[lead] ") != std::string::npos);
  const auto prompt = r.out.find("answer> ");
  REQUIRE(prompt != std::string::npos);
  CHECK(r.out.find("blue", prompt) != std::string::npos);
  CHECK(r.out.find("lead: a: b: The operator answered: blue") != std::string::npos);
}
