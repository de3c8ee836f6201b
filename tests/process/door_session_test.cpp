// One capsule session by hand, as real processes: `mur run --manifest … --json` prints its
// readiness line and writes its running record; `mur send ses_…` hands it a task and prints the
// answer; SIGTERM ends it in order (session_end last in trace.jsonl, record removed); `--task`
// prints the answer and exits 0. No token appears on any output or in the trace.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace mur::test;
using json = nlohmann::json;

namespace {

const std::string reviewer = std::string(MUR_SOURCE_DIR) + "/examples/review/capsules/reviewer";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

TEST_CASE("mur run --manifest: readiness line, mur send, SIGTERM", "[process][door]") {
  TempDir home, work;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  LaunchedMur run({MUR_BINARY, "run", "--manifest", reviewer, "--json", "--workdir", work.path}, env);
  const std::string line = run.read_line();
  json ready = json::parse(line, nullptr, false);
  REQUIRE(ready.is_object());
  const std::string ses = ready.value("session_id", "");
  REQUIRE(ses.rfind("ses_", 0) == 0);
  CHECK(ready["name"] == "review-reviewer");
  CHECK(ready["version"] == "1.0.0");
  CHECK(ready["workdir"] == work.path);
  CHECK(ready["pid"] == run.pid());
  CHECK(ready["url"].get<std::string>().rfind("http://127.0.0.1:", 0) == 0);
  CHECK_FALSE(ready.contains("formation_id"));
  CHECK(line.find("mdt1") == std::string::npos);

  const std::string record = home.path + "/running/" + ses + ".json";
  struct stat st {};
  REQUIRE(::stat(record.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat((home.path + "/running").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  json rec = json::parse(slurp(record));
  CHECK(rec["url"] == ready["url"]);
  CHECK(rec["operator_token"].get<std::string>().rfind("mdt1.", 0) == 0);

  Ran sent = run_command({MUR_BINARY, "send", ses, "please review"}, env);
  CHECK(sent.exit_code == 0);
  CHECK(sent.out == "Approved: the patch does what was asked.\n");
  Ran todo = run_command({MUR_BINARY, "send", ses, "a TODO remains", "--json"}, env);
  CHECK(todo.exit_code == 0);
  json answer = json::parse(todo.out, nullptr, false);
  CHECK(answer["state"] == "completed");
  CHECK(answer["answer"] == "Changes requested: the patch still has a TODO.");
  for (const auto* out : {&sent.out, &sent.err, &todo.out, &todo.err}) CHECK(out->find("mdt1") == std::string::npos);

  run.signal(SIGTERM);
  CHECK(run.wait() == 0);
  CHECK_FALSE(exists(record));
  const std::string dir = work.path + "/.murmur/" + ses;
  const std::string trace = slurp(dir + "/trace.jsonl");
  CHECK(trace.find("mdt1") == std::string::npos);
  std::vector<json> lines;
  std::istringstream in(trace);
  for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
  REQUIRE(lines.size() >= 2);
  CHECK(lines.front()["event_type"] == "session_start");
  CHECK(lines.back()["event_type"] == "session_end");
  CHECK(slurp(dir + "/out/result.txt") == "Changes requested: the patch still has a TODO.");
  CHECK(exists(dir + "/logs"));
}

TEST_CASE("mur run --manifest --task prints the answer and exits 0", "[process][door]") {
  TempDir home, work;
  Ran ran = run_command({MUR_BINARY, "run", "--manifest", reviewer, "--task", "review this", "--lifecycle-after-task",
                         "exit", "--workdir", work.path},
                        {{"MURMUR_HOME", home.path}});
  CHECK(ran.exit_code == 0);
  CHECK(ran.out == "Approved: the patch does what was asked.\n");
  CHECK(ran.err.find("mdt1") == std::string::npos);
}

TEST_CASE("an empty answer after a refused end-without-answer says so, with --json as without", "[process][door]") {
  // The coder's route for "Delete the database" ends the task without an answer; alone (no member
  // to call) and given its task by a person, it may not end so: the end is refused, and the
  // script has nothing more to say.
  const std::string coder = std::string(MUR_SOURCE_DIR) + "/examples/review/capsules/coder";
  TempDir home, work;
  Ran as_json = run_command({MUR_BINARY, "run", "--manifest", coder, "--task", "Delete the database", "--json",
                             "--lifecycle-after-task", "exit", "--workdir", work.path},
                            {{"MURMUR_HOME", home.path}});
  INFO(as_json.out << as_json.err);
  REQUIRE(as_json.exit_code == 0);
  json answer;
  for (std::size_t at = 0; at < as_json.out.size();) {
    const std::size_t nl = as_json.out.find('\n', at);
    json line = json::parse(as_json.out.substr(at, nl - at), nullptr, false);
    if (line.is_object() && line.contains("answer")) answer = line;
    at = nl == std::string::npos ? as_json.out.size() : nl + 1;
  }
  REQUIRE(answer.is_object());
  CHECK(answer["state"] == "completed");
  CHECK(answer["answer"] == "");
  REQUIRE(answer.contains("note"));
  CHECK(answer["note"].get<std::string>().find("end-without-answer was refused") != std::string::npos);
  CHECK(answer["note"].get<std::string>().find("refused: tool error: ") != std::string::npos);

  TempDir work2;
  Ran as_text = run_command({MUR_BINARY, "run", "--manifest", coder, "--task", "Delete the database",
                             "--lifecycle-after-task", "exit", "--workdir", work2.path},
                            {{"MURMUR_HOME", home.path}});
  INFO(as_text.err);
  CHECK(as_text.err.find("note: completed with an empty answer; end-without-answer was refused") != std::string::npos);
}

TEST_CASE("a session whose task ends at once starts and ends cleanly every time", "[process][door]") {
  // The launch task used to start before the session held its door: a script that answers at
  // once could end the member first (E-RUN-049, about 1 run in 10). Twenty runs, all clean.
  TempDir home, capsule;
  std::ofstream(capsule.path + "/murmur.yaml") << "name: at-once\nversion: 1.0.0\ninference:\n  transport: script\n"
                                                  "  turns:\n    - reply: \"Approved: the patch does what was asked.\"\n";
  for (int run = 0; run < 20; ++run) {
    TempDir work;
    Ran r = run_command({MUR_BINARY, "run", "--manifest", capsule.path, "--task", "review this", "--json",
                         "--lifecycle-after-task", "exit", "--workdir", work.path},
                        {{"MURMUR_HOME", home.path}});
    INFO("run " << run << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("E-RUN-049") == std::string::npos);
    CHECK(r.out.find("\"answer\":\"Approved: the patch does what was asked.\"") != std::string::npos);
  }
}

TEST_CASE("mur send refuses a session that is not running", "[process][door]") {
  TempDir home;
  Ran ran = run_command({MUR_BINARY, "send", "ses_0192f0c0a1b2c3d4e5f60718293a4b5c", "x"}, {{"MURMUR_HOME", home.path}});
  CHECK(ran.exit_code == 1);
  CHECK(ran.err.find("E-SND-001") != std::string::npos);
}

TEST_CASE("a session with a formation id but no lifeline warns W-RUN-007, and a launched formation's members never do",
          "[process][door][formation]") {
  TempDir home, work;
  const std::string frm = "frm_0192f0c0a1b2c3d4e5f60718293a4b5c";
  const std::vector<std::string> argv{MUR_BINARY, "run", "--manifest", reviewer, "--task", "review this",
                                      "--lifecycle-after-task", "exit", "--workdir", work.path};
  // Started by hand inside "a formation": it says it will not end with it, and still runs its task.
  Ran by_hand = run_command(argv, {{"MURMUR_HOME", home.path}, {"MURMUR_FORMATION_ID", frm}});
  INFO(by_hand.err);
  CHECK(by_hand.exit_code == 0);
  CHECK(by_hand.out == "Approved: the patch does what was asked.\n");
  CHECK(by_hand.err.find("warning[W-RUN-007]: this session is in formation " + frm + " but has no lifeline") != std::string::npos);
  // Outside a formation: nothing to warn about.
  Ran alone = run_command(argv, {{"MURMUR_HOME", home.path}});
  CHECK(alone.exit_code == 0);
  CHECK(alone.err.find("W-RUN-007") == std::string::npos);
  // Every member mur run --roster starts holds its lifeline: no member warns (their stderr
  // reaches the launcher's, prefixed).
  FormationFixture f;
  Ran launched = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag"}, f.env);
  INFO(launched.err);
  CHECK(launched.exit_code == 0);
  CHECK(launched.err.find("W-RUN-007") == std::string::npos);
}
