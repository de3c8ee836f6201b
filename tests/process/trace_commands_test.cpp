// `mur trace` on a real formation (examples/review: lead → coder → reviewer): two tasks by
// `mur send` make a tree of two user tasks in time order, each nesting lead's call → coder's
// task → coder's call → reviewer's task (JSON and text); `mur trace list` lists the formation
// and, from the project directory, the entry's session; `mur trace show frm_… --follow` prints
// the calls and answers as they come and ends (exit 0) when the formation is stopped;
// `run --roster -v` prints the same lines on stderr; a session id with --follow is E-TRC-003; a
// refused end-without-answer shows in the tree and the --follow lines like a refused call.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <csignal>
#include <filesystem>

using namespace mur::test;
using json = nlohmann::json;

namespace {

const std::string arrow = " \xE2\x86\x92 ";

// The one call of `task` to `callee`, and the callee's task under it.
const json& nested(const json& task, const std::string& callee) {
  REQUIRE(task["calls"].size() == 1);
  const json& call = task["calls"][0];
  CHECK(call["callee"] == callee);
  CHECK(call["status"] == "completed");
  REQUIRE(call["task"].is_object());
  CHECK(call["task"]["member"] == callee);
  CHECK(call["task"]["task_id"] == call["member_task_id"]);
  // taken after its caller's task began (the call's own start is the caller's estimate: end − duration)
  CHECK(call["task"]["start_ms"].get<std::int64_t>() >= task["start_ms"].get<std::int64_t>());
  return call["task"];
}

} // namespace

TEST_CASE("trace show: two tasks of a chain formation as a tree in time order, and trace list lists it", "[process][trace]") {
  ServedFormation served;
  auto& [f, run, s, frm] = served;
  LaunchedMur follow({MUR_BINARY, "trace", "show", frm, "--follow"}, f.env);
  CHECK(follow.read_line().find("following formation " + frm) == 0);

  REQUIRE(run_command({MUR_BINARY, "send", frm, "add a flag"}, f.env).exit_code == 0);
  // --follow prints the first task's calls and answers while the formation still runs (each
  // read is bounded: a line that never comes fails the test).
  std::vector<std::string> awaited{arrow + "lead  task  started", "lead" + arrow + "coder  call  started",
                                   "coder" + arrow + "reviewer  answer  completed",
                                   "lead" + arrow + "coder  answer  completed", arrow + "lead  answer  ok"};
  while (!awaited.empty()) {
    const std::string l = follow.read_line();
    INFO("awaiting " << awaited.front());
    REQUIRE(!l.empty());
    for (auto it = awaited.begin(); it != awaited.end(); ++it)
      if (l.find(*it) != std::string::npos) {
        awaited.erase(it);
        break;
      }
  }

  REQUIRE(run_command({MUR_BINARY, "send", frm, "add a TODO list"}, f.env).exit_code == 0);
  REQUIRE(run_command({MUR_BINARY, "stop", frm}, f.env).exit_code == 0);
  CHECK(run.wait() == 128 + SIGTERM);
  std::string last, l;
  while (!(l = follow.read_line()).empty()) last = l;
  CHECK(last == "formation " + frm + " ended");
  CHECK(follow.wait() == 0);

  Ran shown = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, f.env);
  REQUIRE(shown.exit_code == 0);
  json tr = json::parse(shown.out, nullptr, false);
  REQUIRE(tr["tasks"].size() == 2);
  const json& first = tr["tasks"][0];
  const json& second = tr["tasks"][1];
  CHECK(first["member"] == "lead");
  CHECK(first["origin"] == "user");
  CHECK(first["status"] == "ok");
  CHECK(first["start_ms"].get<std::int64_t>() <= second["start_ms"].get<std::int64_t>());
  CHECK(first["text"] == "add a flag"); // sent first, answered before the second was sent
  CHECK(second["text"] == "add a TODO list");
  CHECK(first["answer"].get<std::string>().find("Lead's summary.") == 0);
  for (const json* t : {&first, &second}) {
    const json& coder = nested(*t, "coder");
    const json& reviewer = nested(coder, "reviewer");
    CHECK(reviewer["calls"].empty());
  }
  CHECK(tr["members"].size() == 3);

  Ran human = run_command({MUR_BINARY, "trace", "show", frm}, f.env);
  REQUIRE(human.exit_code == 0);
  // Order and depth: lead's task, its call, coder's task (deeper), coder's call, reviewer's task.
  const std::vector<std::string> in_order{"  lead  tsk_", "lead" + arrow + "coder  completed", "  coder  tsk_",
                                          "coder" + arrow + "reviewer  completed", "  reviewer  tsk_"};
  std::size_t at = 0;
  for (int task = 0; task < 2; ++task)
    for (const auto& what : in_order) {
      INFO(human.out << "\nlooking for: " << what);
      at = human.out.find(what, at);
      REQUIRE(at != std::string::npos);
    }
  CHECK(human.out.find("\n        +") != std::string::npos); // the reviewer's task, four levels in

  Ran list = run_command({MUR_BINARY, "trace", "list", "--json"}, f.env, f.project.path);
  REQUIRE(list.exit_code == 0);
  json listed = json::parse(list.out, nullptr, false);
  REQUIRE(listed["formations"].size() == 1);
  CHECK(listed["formations"][0]["formation_id"] == frm);
  CHECK(listed["formations"][0]["running"] == false);
  CHECK(listed["formations"][0]["members"].size() == 3);
  CHECK(listed["formations"][0]["outcome"].get<std::string>().find("ended") == 0);
  REQUIRE(listed["sessions"].size() == 1); // the entry's, in the project's .murmur
  CHECK(listed["sessions"][0]["formation_id"] == frm);
  CHECK(listed["sessions"][0]["member"] == "lead");
  Ran list_human = run_command({MUR_BINARY, "trace", "list"}, f.env, f.project.path);
  CHECK(list_human.out.find(frm) != std::string::npos);

  const std::string ses = listed["sessions"][0]["session_id"];
  Ran not_frm = run_command({MUR_BINARY, "trace", "show", ses, "--follow"}, f.env);
  CHECK(not_frm.exit_code == 1);
  CHECK(not_frm.err.find("E-TRC-003") != std::string::npos);
}

TEST_CASE("run --roster -v prints each call and answer on stderr, each member's in order", "[process][trace]") {
  FormationFixture f;
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag", "-v"}, f.env);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Each member's lines in its own order (members flush their traces independently: lines of
  // different members are sorted by time only within the follower's settle window).
  const std::vector<std::vector<std::string>> orders{
    {arrow + "lead  task  started", "lead" + arrow + "coder  call  started",
     "lead" + arrow + "coder  answer  completed", arrow + "lead  answer  ok", "ended: the entry member ended"},
    {"coder" + arrow + "reviewer  call  started", "coder" + arrow + "reviewer  answer  completed",
     "ended: the entry member ended"}};
  for (const auto& in_order : orders) {
    std::size_t at = 0;
    for (const auto& what : in_order) {
      INFO(what);
      at = r.err.find(what, at);
      REQUIRE(at != std::string::npos);
    }
  }
}

TEST_CASE("a refused call is in the tree and in the -v lines", "[process][trace]") {
  // examples/broken/busy-warning: the lead's script calls `coder`, the roster lets it call coder-a/b/c.
  FormationFixture f;
  std::filesystem::copy_file(f.example_dir + "/../broken/busy-warning/roster.yaml", f.project.path + "/roster.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag", "-v"}, f.env);
  INFO(r.err);
  const std::string frm = formation_id_in(r.err);
  REQUIRE(!frm.empty());
  CHECK(r.err.find("lead" + arrow + "coder  call  refused") != std::string::npos);

  Ran shown = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, f.env);
  REQUIRE(shown.exit_code == 0);
  json tr = json::parse(shown.out, nullptr, false);
  REQUIRE(tr["tasks"].size() == 1);
  bool refused = false;
  for (const auto& c : tr["tasks"][0]["calls"])
    if (c["callee"] == "coder" && c["status"] == "refused") {
      refused = true;
      CHECK(!c["reason"].get<std::string>().empty());
      CHECK(c["task"].is_null());
    }
  CHECK(refused);
  Ran human = run_command({MUR_BINARY, "trace", "show", frm}, f.env);
  CHECK(human.out.find("lead" + arrow + "coder  refused") != std::string::npos);
}

TEST_CASE("a refused end-without-answer is in the tree and in the --follow lines", "[process][trace]") {
  // examples/review's coder ends a task naming a database without an answer; sent by mur send
  // (not by a formation member), that end is refused, and the refusal is traced.
  ServedFormation served;
  auto& [f, run, s, frm] = served;
  std::string coder;
  for (const auto& p : s.formation["peers"])
    if (p["name"] == "coder") coder = p["session_id"];
  REQUIRE(!coder.empty());
  LaunchedMur follow({MUR_BINARY, "trace", "show", frm, "--follow"}, f.env);
  CHECK(follow.read_line().find("following formation " + frm) == 0);
  run_command({MUR_BINARY, "send", coder, "Delete the database"}, f.env);
  for (std::string l;;) { // each read is bounded: a line that never comes fails the test
    l = follow.read_line();
    REQUIRE(!l.empty());
    if (l.find("coder  end-without-answer  refused  \"tool error:") != std::string::npos) break;
  }
  REQUIRE(run_command({MUR_BINARY, "stop", frm}, f.env).exit_code == 0);
  CHECK(run.wait() == 128 + SIGTERM);
  CHECK(follow.wait() == 0);

  Ran shown = run_command({MUR_BINARY, "trace", "show", frm, "--json"}, f.env);
  REQUIRE(shown.exit_code == 0);
  json tr = json::parse(shown.out, nullptr, false);
  REQUIRE(tr["tasks"].size() == 1);
  CHECK(tr["tasks"][0]["member"] == "coder");
  int refusals = 0;
  for (const auto& c : tr["tasks"][0]["calls"])
    if (c["tool"] == "end-without-answer") {
      ++refusals;
      CHECK(c["status"] == "refused");
      CHECK(c["caller"] == "coder");
      CHECK(c["text"] == "I do not make destructive changes without a human in the loop");
      CHECK(c["reason"].get<std::string>().find("not sent by a formation member") != std::string::npos);
    }
  CHECK(refusals == 1);
  Ran human = run_command({MUR_BINARY, "trace", "show", frm}, f.env);
  CHECK(human.out.find("coder  end-without-answer  refused  \"tool error:") != std::string::npos);
  CHECK(human.out.find("(reason given: \"I do not make destructive changes") != std::string::npos);
}
