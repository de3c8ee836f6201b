// The `mur` command line says what it means (docs/spec/choices.md §A usable command line),
// checked on the real binary: an
// unknown command or flag is named with the nearest known one (E-CLI-001, exit 2); `mur help`
// prints help; a flag that does not apply to the chosen mode is refused with why (E-CLI-002);
// --resume with --roster gets the seeds' reason; --deadline 0 and an empty task are refused
// (E-CLI-003); paths are reported exactly by doctor and run; usage lines say `mur`; under --json
// a failure is one JSON line on stdout; a template naming an unknown placeholder is refused at
// install and by doctor (E-MAN-004, the known ones listed).
#include <catch2/catch.hpp>

#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string reviewer = std::string(MUR_SOURCE_DIR) + "/examples/review/capsules/reviewer";
const std::string review = std::string(MUR_SOURCE_DIR) + "/examples/review";

Ran mur_cli(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, const std::string& cwd = {}) {
  std::vector<std::string> argv{MUR_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, env, cwd);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The one JSON line a --json failure prints on stdout.
json json_error(const Ran& r) {
  REQUIRE(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  json j = json::parse(r.out, nullptr, false);
  REQUIRE(j.is_object());
  REQUIRE(j.contains("error"));
  return j["error"];
}

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

} // namespace

TEST_CASE("an unknown command or flag is named with the nearest known one, exit 2", "[process][cli]") {
  TempDir home;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  struct Case {
    std::vector<std::string> args;
    std::string said;
  };
  const std::vector<Case> cases{
    {{"instal", "x"}, "unknown command 'instal' \xE2\x80\x94 did you mean 'install'?"},
    {{"doctr"}, "unknown command 'doctr' \xE2\x80\x94 did you mean 'doctor'?"},
    {{"--versoin"}, "unknown flag '--versoin' for mur \xE2\x80\x94 did you mean '--version'?"},
    {{"trace", "shw", "x"}, "unknown command 'shw' for mur trace \xE2\x80\x94 did you mean 'show'?"},
    {{"list", "--jsn"}, "unknown flag '--jsn' for mur list \xE2\x80\x94 did you mean '--json'?"},
    {{"run", "--rooster", "."}, "did you mean '--roster'?"},
  };
  for (const auto& c : cases) {
    Ran r = mur_cli(c.args, env);
    INFO(c.args.front() << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "error[E-CLI-001]: "));
    CHECK(has(r.err, c.said));
    CHECK(has(r.err, "\nFix: "));
    CHECK_FALSE(has(r.err, "A subcommand is required"));
  }
  Ran none = mur_cli({"frobnicate"}, env);
  CHECK(none.exit_code == 2);
  CHECK(has(none.err, "unknown command 'frobnicate'"));
  CHECK(has(none.err, "Fix: the commands are: install, list, doctor"));
}

TEST_CASE("mur help prints help, and usage lines say mur, not the binary's path", "[process][cli]") {
  TempDir home;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  Ran help = mur_cli({"help"}, env);
  CHECK(help.exit_code == 0);
  CHECK(has(help.out, "Usage: mur [OPTIONS] SUBCOMMAND"));
  CHECK(has(help.out, "install"));
  Ran run_help = mur_cli({"help", "run"}, env);
  CHECK(run_help.exit_code == 0);
  CHECK(has(run_help.out, "Usage: mur run [OPTIONS]"));
  CHECK(has(run_help.out, "--roster"));
  CHECK_FALSE(has(run_help.out, "--lifecycle-after-task")); // the launcher's own flags stay hidden
  Ran flag_help = mur_cli({"trace", "show", "--help"}, env);
  CHECK(flag_help.exit_code == 0);
  CHECK(has(flag_help.out, "Usage: mur trace show"));
  for (const auto* out : {&help.out, &run_help.out, &flag_help.out}) CHECK_FALSE(has(*out, MUR_BINARY));
  Ran missing = mur_cli({"send", "ses_x"}, env);
  CHECK(missing.exit_code == 2);
  CHECK(has(missing.err, "error[E-CLI-003]: mur send: TEXT is required"));
  CHECK_FALSE(has(missing.err, MUR_BINARY));
}

TEST_CASE("a flag that does not apply to the chosen mode is refused with why, exit 2", "[process][cli]") {
  TempDir home, work;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  struct Case {
    std::vector<std::string> args;
    std::string said;
  };
  const std::vector<Case> cases{
    {{"run", "--roster", review, "--workdir", work.path}, "E-CLI-002]: --workdir does not apply to mur run --roster"},
    {{"run", "--roster", review, "--lifecycle-after-task", "exit"}, "--lifecycle-after-task does not apply to mur run --roster"},
    {{"run", "--roster", review, "--lifecycle-task-acceptance", "queue"},
     "--lifecycle-task-acceptance does not apply to mur run --roster"},
    {{"run", "--roster", review, "--port", "8080"}, "--port does not apply to mur run --roster"},
    {{"run", "--roster", review, "--capsule", "x"}, "--capsule does not apply to mur run --roster"},
    {{"run", "--manifest", reviewer, "--deadline", "1s"}, "--deadline does not apply to one capsule session"},
    {{"run", "--manifest", reviewer, "--capsule-version", "1.0.0"}, "--capsule-version does not apply to mur run --manifest"},
    {{"run", "--capsule", "x", "--manifest", reviewer}, "--capsule and --manifest name two capsules"},
    {{"run", "--roster", review, "--resume"},
     "E-CLI-002]: mur run --roster refuses --resume: a formation cannot be resumed; launch it again"},
    {{"run", "--roster", review, "--deadline", "0"}, "E-CLI-003]: --deadline 0 would end the formation"},
    {{"run", "--roster", review, "--deadline", "soon"}, "E-CLI-003]: --deadline is not a duration"},
    {{"run", "--roster", review, "--task", ""}, "E-CLI-003]: the task is empty"},
    {{"run", "--manifest", reviewer, "--task", "  "}, "E-CLI-003]: the task is empty"},
    {{"send", "ses_0192f0c0a1b2c3d4e5f60718293a4b5c", ""}, "E-CLI-003]: the task is empty"},
    {{"run", "--manifest", reviewer, "--port", "70000"}, "E-CLI-003]: --port 70000 is not a TCP port"},
  };
  for (const auto& c : cases) {
    Ran r = mur_cli(c.args, env);
    INFO(c.said << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, c.said));
    CHECK(has(r.err, "\nFix: "));
  }
  CHECK(fs::is_empty(home.path)); // nothing was started or written
}

TEST_CASE("a task file that is empty, blank or unreadable is refused before anything starts, in both modes",
          "[process][cli]") {
  TempDir home, work;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  write(work.path + "/empty.txt", "");
  write(work.path + "/blank.txt", " \n\t\n");
  for (const std::string& mode : {"--manifest", "--roster"}) {
    for (const std::string& file : {"empty.txt", "blank.txt"}) {
      Ran r = mur_cli({"run", mode, mode == "--roster" ? review : reviewer, "--task", "@" + file}, env, work.path);
      INFO(mode << " " << file << "\n" << r.err);
      CHECK(r.exit_code != 0);
      CHECK(has(r.err, "E-RUN-009]: the task file " + file + " is empty"));
      CHECK(has(r.err, "\nFix: write the task into it"));
    }
    Ran missing = mur_cli({"run", mode, mode == "--roster" ? review : reviewer, "--task", "@nowhere.txt"}, env, work.path);
    INFO(missing.err);
    CHECK(missing.exit_code != 0);
    CHECK(has(missing.err, "E-RUN-009]: cannot read the task file nowhere.txt"));
  }
  CHECK(fs::is_empty(home.path)); // nothing was started or written
}

TEST_CASE("paths are reported exactly by mur doctor and mur run --roster", "[process][cli]") {
  TempDir home, project;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  write(project.path + "/notes.txt", "hello\n");
  fs::create_directories(project.path + "/empty");
  const std::string missing = project.path + "/nope";

  Ran d1 = mur_cli({"doctor", missing}, env);
  CHECK(d1.exit_code == 1);
  CHECK(has(d1.out, "E-ROS-001: " + missing + " does not exist"));
  Ran d2 = mur_cli({"doctor", project.path + "/notes.txt"}, env);
  CHECK(d2.exit_code == 1);
  CHECK(has(d2.out, "notes.txt is a file, but not a roster.yaml or murmur.yaml"));
  Ran d3 = mur_cli({"doctor", project.path + "/empty"}, env);
  CHECK(d3.exit_code == 1);
  CHECK(has(d3.out, "empty holds no roster.yaml or murmur.yaml"));
  // doctor takes a roster.yaml as run --roster does: it checks that project (here: not installed).
  Ran d4 = mur_cli({"doctor", review + "/roster.yaml"}, env);
  CHECK(d4.exit_code == 1);
  CHECK(has(d4.out, "file: " + review + "/roster.yaml"));
  CHECK(has(d4.out, "E-ROS-007"));

  Ran r1 = mur_cli({"run", "--roster", missing}, env);
  CHECK(r1.exit_code == 1);
  CHECK(has(r1.err, "error[E-ROS-001]: " + missing + " does not exist"));
  Ran r2 = mur_cli({"run", "--roster", project.path + "/notes.txt"}, env);
  CHECK(r2.exit_code == 1);
  CHECK(has(r2.err, "notes.txt is a file, but not a roster.yaml"));
  Ran r3 = mur_cli({"run", "--roster", project.path + "/empty"}, env);
  CHECK(r3.exit_code == 1);
  CHECK(has(r3.err, "empty holds no roster.yaml"));
  Ran r4 = mur_cli({"run", "--roster", reviewer}, env);
  CHECK(r4.exit_code == 1);
  CHECK(has(r4.err, "holds no roster.yaml (it is a capsule folder)"));
  CHECK(has(r4.err, "Fix: run the capsule alone: mur run --manifest " + reviewer));
}

TEST_CASE("with --json a failure is one JSON line with code, message and fix", "[process][cli]") {
  TempDir home;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  Ran send = mur_cli({"send", "ses_0192f0c0a1b2c3d4e5f60718293a4b5c", "x", "--json"}, env);
  CHECK(send.exit_code == 1);
  json e = json_error(send);
  CHECK(e["code"] == "E-SND-001");
  CHECK(has(e["message"], "no running session"));
  CHECK(e["fix"] == "list running sessions with mur ps");
  CHECK(send.err.empty());

  Ran run = mur_cli({"run", "--roster", home.path + "/nope", "--json"}, env);
  CHECK(run.exit_code == 1);
  CHECK(json_error(run)["code"] == "E-ROS-001");
  Ran usage = mur_cli({"run", "--roster", ".", "--task", "", "--json"}, env);
  CHECK(usage.exit_code == 2);
  CHECK(json_error(usage)["code"] == "E-CLI-003");
  Ran trace = mur_cli({"trace", "show", "nothing", "--json"}, env);
  CHECK(trace.exit_code == 1);
  CHECK(json_error(trace)["code"] == "E-TRC-001");
  Ran unknown = mur_cli({"ps", "--jsno", "--json"}, env);
  CHECK(unknown.exit_code == 2);
  CHECK(json_error(unknown)["code"] == "E-CLI-001");

  Ran doctor = mur_cli({"doctor", home.path + "/nope", "--json"}, env);
  CHECK(doctor.exit_code == 1);
  CHECK(json_error(doctor)["code"] == "E-ROS-001");
}

TEST_CASE("mur doctor --json reports the roster, its warnings and its refusal as one object", "[process][cli]") {
  TempDir home;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  for (const char* c : {"lead", "coder", "reviewer"})
    REQUIRE(mur_cli({"install", "-g", review + "/capsules/" + c}, env).exit_code == 0);
  Ran ok = mur_cli({"doctor", review, "--json"}, env);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  json j = json::parse(ok.out, nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["ok"] == true);
  CHECK(j["checks_passed"] == 12); // every admission check, the ceiling of live members (11) and the hosts (12) too
  REQUIRE(j["roster"]["members"].size() == 3);
  CHECK(j["roster"]["members"][0]["name"] == "lead");
  CHECK(j["roster"]["members"][0]["entry"] == true);
  CHECK(j["roster"]["reachability"][0] == json{{"from", "lead"}, {"to", "coder"}});
  CHECK_FALSE(j.contains("error"));

  Ran refused = mur_cli({"doctor", std::string(MUR_SOURCE_DIR) + "/examples/broken/unknown-member", "--json"}, env);
  CHECK(refused.exit_code == 1);
  CHECK(json_error(refused)["code"] == "E-ROS-004");
}

TEST_CASE("a template naming an unknown placeholder is refused at install and by doctor", "[process][cli]") {
  TempDir home, project;
  const std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  const std::string capsule = project.path + "/typo";
  write(capsule + "/murmur.yaml", "name: typo\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n"
                                  "    - reply: \"Answer: {{tsak}}\"\n");
  Ran install = mur_cli({"install", capsule}, env, project.path);
  CHECK(install.exit_code == 1);
  CHECK(has(install.err, "error[E-MAN-004]: " + capsule + "/murmur.yaml: inference.turns[0].reply: unknown placeholder {{tsak}}"));
  CHECK(has(install.err, "Fix: use one of {{task}}, {{member}}, {{answer.NAME}}, {{answers}}"));
  CHECK_FALSE(fs::exists(project.path + "/.murmur/artifacts/typo"));

  Ran doctor = mur_cli({"doctor", capsule}, env);
  CHECK(doctor.exit_code == 1);
  CHECK(has(doctor.out, "E-MAN-004: "));
  CHECK(has(doctor.out, "unknown placeholder {{tsak}}"));

  Ran run = mur_cli({"run", "--manifest", capsule, "--task", "x"}, env, project.path);
  CHECK(run.exit_code == 1);
  CHECK(has(run.err, "error[E-MAN-004]: "));

  // The same capsule spelt right installs.
  write(capsule + "/murmur.yaml", "name: typo\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n"
                                  "    - reply: \"Answer: {{task}}\"\n");
  CHECK(mur_cli({"install", capsule}, env, project.path).exit_code == 0);
  CHECK(mur_cli({"doctor", capsule}, env).exit_code == 0);
}
