// `mur new` and `mur formations rm` with real processes (docs/spec/choices.md §Command line): a
// scaffolded
// project installs, passes doctor and answers offline with its two capsules (the entry calls the
// worker), from the commands it prints; `--model http` scaffolds capsules that install and that
// doctor reads without a manifest or roster error; an existing path is refused. Formation
// directories are removed by id, --ended or --older-than — never one that runs (E-FRM-002);
// `mur ps` says one thing when nothing runs.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

Ran mur_in(const std::string& cwd, const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv{MUR_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, env, cwd);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("mur new: a project that installs, passes doctor and runs offline", "[process][cli][new]") {
  TempDir home, where;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  Ran made = mur_in(where.path, {"new", "my-team"}, env);
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  CHECK(has(made.out, "mur install capsules/worker && mur install capsules/lead"));
  const std::string project = where.path + "/my-team";
  CHECK(fs::exists(project + "/roster.yaml"));
  CHECK(fs::exists(project + "/capsules/lead/murmur.yaml"));
  CHECK(fs::exists(project + "/capsules/worker/murmur.yaml"));

  for (const char* c : {"capsules/worker", "capsules/lead"}) {
    Ran in = mur_in(project, {"install", c}, env);
    INFO(in.err);
    CHECK(in.exit_code == 0);
  }
  Ran doctor = mur_in(project, {"doctor"}, env);
  INFO(doctor.out);
  CHECK(doctor.exit_code == 0);
  CHECK(has(doctor.out, "All checks passed."));
  CHECK(has(doctor.out, "reachability: lead \xE2\x86\x92 worker"));
  Ran run = mur_in(project, {"run", "--roster", ".", "--task", "say hello"}, env);
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out == "The worker answered: Done: say hello\n");

  Ran again = mur_in(where.path, {"new", "my-team"}, env);
  CHECK(again.exit_code == 1);
  CHECK(has(again.err, "error[E-NEW-001]: my-team already exists"));
  Ran bad = mur_in(where.path, {"new", "My Team"}, env);
  CHECK(bad.exit_code == 1);
  CHECK(has(bad.err, "error[E-NEW-002]"));
  CHECK_FALSE(fs::exists(where.path + "/My Team"));
  Ran model = mur_in(where.path, {"new", "other", "--model", "gpt"}, env);
  CHECK(model.exit_code == 2);
  CHECK(has(model.err, "error[E-CLI-003]: --model gpt is not one of script, http"));
}

TEST_CASE("mur new --model http: capsules for a local OpenAI-compatible server that install and doctor reads", "[process][cli][new]") {
  TempDir home, where;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  REQUIRE(mur_in(where.path, {"new", "local-llm", "--model", "http"}, env).exit_code == 0);
  const std::string project = where.path + "/local-llm";
  std::ifstream lead(project + "/capsules/lead/murmur.yaml");
  const std::string text((std::istreambuf_iterator<char>(lead)), std::istreambuf_iterator<char>());
  CHECK(has(text, "transport: http"));
  CHECK(has(text, "endpoint: http://127.0.0.1:11434/v1"));
  CHECK(has(text, "model: llama3.2"));
  for (const char* c : {"capsules/worker", "capsules/lead"}) {
    Ran in = mur_in(project, {"install", c}, env);
    INFO(in.err);
    CHECK(in.exit_code == 0);
  }
  // Every manifest key and the roster are accepted: doctor passes when told not to probe the
  // model server (none need run here; its probes are tested in edit_run_loop_test.cpp).
  Ran doctor = mur_in(project, {"doctor", "--json", "--no-probe"}, env);
  json j = json::parse(doctor.out, nullptr, false);
  REQUIRE(j.is_object());
  CHECK_FALSE(j.contains("error"));
  CHECK(doctor.exit_code == 0);
  for (const char* c : {"capsules/worker", "capsules/lead"}) {
    Ran one = mur_in(project, {"doctor", c, "--json", "--no-probe"}, env);
    json k = json::parse(one.out, nullptr, false);
    REQUIRE(k.is_object());
    CHECK(k["capsule"]["transport"] == "http");
    CHECK_FALSE(k.contains("error"));
  }
}

TEST_CASE("mur formations rm by id, --ended or --older-than, never a formation that runs", "[process][cli][formation]") {
  FormationFixture f;
  Ran ended = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag"}, f.env);
  REQUIRE(ended.exit_code == 0);
  const std::string done = formation_id_in(ended.err);
  REQUIRE(!done.empty());
  const std::string root = f.home.path + "/formations/";
  REQUIRE(fs::is_directory(root + done));

  LaunchedMur serving({MUR_BINARY, "run", "--roster", f.project.path, "--json"}, f.env);
  const Serving s = serve(serving);
  const std::string live = s.id();
  REQUIRE(fs::is_directory(root + live));

  Ran old = run_command({MUR_BINARY, "formations", "rm", "--older-than", "7d"}, f.env);
  CHECK(old.exit_code == 0);
  CHECK(old.out == "no formation directory to remove\n");
  CHECK(fs::is_directory(root + done));

  Ran refused = run_command({MUR_BINARY, "formations", "rm", live}, f.env);
  CHECK(refused.exit_code == 1);
  CHECK(has(refused.err, "error[E-FRM-002]: formation " + live + " is running"));
  CHECK(has(refused.err, "Fix: stop it first: mur stop " + live));
  CHECK(fs::is_directory(root + live));

  Ran swept = run_command({MUR_BINARY, "formations", "rm", "--ended"}, f.env);
  CHECK(swept.exit_code == 0);
  CHECK(has(swept.out, "removed  " + done));
  CHECK(has(swept.out, "kept     " + live + "  (it is running)"));
  CHECK_FALSE(fs::exists(root + done));
  CHECK(fs::is_directory(root + live));

  Ran ps = run_command({MUR_BINARY, "ps"}, f.env);
  CHECK(has(ps.out, "formation " + live));
  // A member's credential, found by formation and member name.
  Ran token = run_command({MUR_BINARY, "token", "operator", "--formation", live, "--member", "coder"}, f.env);
  CHECK(token.exit_code == 0);
  CHECK(token.out.rfind("mdt1.", 0) == 0);
  Ran no_member = run_command({MUR_BINARY, "token", "operator", "--formation", live, "--member", "tester"}, f.env);
  CHECK(no_member.exit_code == 1);
  CHECK(has(no_member.err, "error[E-TOK-001]: no member 'tester' of formation " + live + " is running"));

  serving.signal(SIGTERM);
  CHECK(serving.wait() == 128 + SIGTERM);
  for (int pid : s.pids) CHECK(gone_within(pid, generous));
  Ran by_id = run_command({MUR_BINARY, "formations", "rm", live}, f.env);
  INFO(by_id.err);
  CHECK(by_id.exit_code == 0);
  CHECK(has(by_id.out, "removed  " + live));
  CHECK_FALSE(fs::exists(root + live));
  Ran missing = run_command({MUR_BINARY, "formations", "rm", live}, f.env);
  CHECK(missing.exit_code == 1);
  CHECK(has(missing.err, "error[E-FRM-001]"));

  Ran quiet = run_command({MUR_BINARY, "ps"}, f.env);
  CHECK(quiet.out == "nothing is running\n");
}

TEST_CASE("mur ps says one thing when nothing runs, pruned records included", "[process][cli]") {
  TempDir home;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  fs::create_directories(home.path + "/running");
  // The record of a session whose process is gone (no process has that pid and start stamp).
  std::ofstream(home.path + "/running/ses_0192f0c0a1b2c3d4e5f60718293a4b5c.json")
    << R"({"session_id":"ses_0192f0c0a1b2c3d4e5f60718293a4b5c","pid":2147483646,"process_start":"x","url":"http://127.0.0.1:1"})"
    << "\n";
  Ran ps = run_command({MUR_BINARY, "ps"}, env);
  CHECK(ps.exit_code == 0);
  CHECK(ps.out == "nothing is running (1 record(s) of processes that are gone removed)\n");
  CHECK(fs::is_empty(home.path + "/running"));
}

TEST_CASE("run --roster --json: a launch that fails is one JSON error line on stdout", "[process][cli][formation]") {
  FormationFixture f;
  std::ofstream(f.home.path + "/formations") << "not a directory\n"; // every peer's directory fails
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag", "--json"}, f.env);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  REQUIRE(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  const json line = json::parse(r.out, nullptr, false);
  REQUIRE(line.is_object());
  CHECK(line["error"]["code"] == "E-RUN-045");
  CHECK(has(line["error"]["message"].get<std::string>(), "could not be made"));
  CHECK(line["error"]["fix"] == "read the member's stderr above; check the roster with mur doctor");
  CHECK_FALSE(has(r.err, "error[E-RUN-045]"));
}
