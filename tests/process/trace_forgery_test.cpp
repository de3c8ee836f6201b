// Traces that survive their writers, with the real `mur` binary: the
// attacker's line `{"event_type":"member_call","call_id":null}` appended to a running peer's
// real trace.jsonl leaves `mur trace show` (text and --json), `mur trace list`, `mur ps`,
// `mur stop` and `mur formations rm` working, and trace show names it "1 line unreadable"
// (W-TRC-001, unreadable_lines). The view's state over the same line is a unit test
// (tests/unit/trace_line_test.cpp); that an agent program cannot reach its member's trace is in
// harness_formation_test.cpp.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <csignal>
#include <fstream>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;

TEST_CASE("a forged line in a peer's trace: trace show, list, ps, stop and formations rm still work and say 1 line unreadable",
          "[process][trace][forgery]") {
  ServedFormation served;
  auto& [f, run, s, frm] = served;
  REQUIRE(run_command({MUR_BINARY, "send", frm, "add a flag"}, f.env).exit_code == 0);

  // The coder's trace, where trace show says its session lives (once its member has flushed
  // its first lines: a bounded number of looks, no time asserted).
  std::string coder_dir;
  for (int look = 0; look < 300 && coder_dir.empty(); ++look) {
    Ran before = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, f.env);
    REQUIRE(before.exit_code == 0);
    json b = json::parse(before.out, nullptr, false);
    CHECK(b["unreadable_lines"] == 0);
    for (const auto& m : b["members"])
      if (m["member"] == "coder") coder_dir = m["dir"];
    if (coder_dir.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE(!coder_dir.empty());
  std::ofstream(coder_dir + "/trace.jsonl", std::ios::app) << R"({"event_type":"member_call","call_id":null})" << "\n";

  Ran shown = run_command({MUR_BINARY, "trace", "show", frm}, f.env);
  INFO(shown.out << shown.err);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("warning[W-TRC-001]: 1 line unreadable in the trace of coder") != std::string::npos);
  CHECK(shown.out.find("Fix: ") != std::string::npos);
  CHECK(shown.out.find("E-ERR-001") == std::string::npos);

  Ran as_json = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, f.env);
  REQUIRE(as_json.exit_code == 0);
  json j = json::parse(as_json.out, nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["unreadable_lines"] == 1);
  REQUIRE(j["calls"].is_array());
  for (const auto& c : j["calls"]) // the forged call (call_id null) is not one of them
    CHECK((c["call_id"].is_string() && !c["call_id"].get<std::string>().empty()));
  for (const auto& m : j["members"]) CHECK(m["unreadable_lines"] == (m["member"] == "coder" ? 1 : 0));
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0]["code"] == "W-TRC-001");

  Ran listed = run_command({MUR_BINARY, "trace", "list", "--json"}, f.env, f.project.path);
  INFO(listed.err);
  REQUIRE(listed.exit_code == 0);
  json l = json::parse(listed.out, nullptr, false);
  REQUIRE(l["formations"].size() == 1);
  CHECK(l["formations"][0]["formation_id"] == frm);
  CHECK(run_command({MUR_BINARY, "trace", "list"}, f.env, f.project.path).exit_code == 0);
  CHECK(run_command({MUR_BINARY, "ps"}, f.env).exit_code == 0);

  Ran stopped = run_command({MUR_BINARY, "stop", frm}, f.env);
  INFO(stopped.out << stopped.err);
  CHECK(stopped.exit_code == 0);
  CHECK(run.wait() == 128 + SIGTERM);

  Ran after = run_command({MUR_BINARY, "trace", "show", frm}, f.env);
  CHECK(after.exit_code == 0);
  CHECK(after.out.find("1 line unreadable") != std::string::npos);

  Ran removed = run_command({MUR_BINARY, "formations", "rm", frm}, f.env);
  INFO(removed.out << removed.err);
  CHECK(removed.exit_code == 0);
  CHECK(removed.out.find("removed  " + frm) != std::string::npos);
}

TEST_CASE("escape sequences a model answers with reach no terminal: trace show writes them out, --json keeps them",
          "[process][trace][terminal]") {
  TempDir home, capsule, work;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  // The model's answer retitles the terminal and clears it; its task text holds a C1 CSI.
  std::ofstream(capsule.path + "/murmur.yaml")
    << "name: escaper\nversion: 1.0.0\ninference:\n  turns:\n    - reply: \"\\e]0;owned\\a\\e[2Jcleared {{task}}\"\n";
  Ran r = run_command({MUR_BINARY, "run", "--manifest", capsule.path, "--task", "csi \xc2\x9b" "31m here", "--json"},
                      env, work.path);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1); // the answer's line
  json answer = json::parse(last, nullptr, false);
  REQUIRE(answer.is_object());
  CHECK(answer["answer"].get<std::string>().find("\x1b]0;owned\x07") != std::string::npos); // JSON keeps the bytes
  const std::string ses = json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false).value("session_id", "");
  REQUIRE(!ses.empty());
  Ran shown = run_command({MUR_BINARY, "trace", "show", ses, "--full"}, env, work.path);
  INFO(shown.out << shown.err);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("\\x1b]0;owned\\x07\\x1b[2Jcleared csi \\u009b31m here") != std::string::npos);
  for (char c : shown.out) CHECK_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t'));
  CHECK(shown.out.find("\xc2\x9b") == std::string::npos);
}
