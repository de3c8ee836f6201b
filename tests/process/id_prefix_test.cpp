// Ids on the command line (docs/spec/choices.md §Command line, "Ids on the command line"), with
// real processes: two sessions in one MURMUR_HOME; `last` names the newer, a unique prefix (with
// `ses_` or its hex alone) names its session, a prefix of both is E-ID-001 listing both, a
// prefix of none is E-ID-002 — through mur send, mur trace show and mur stop; and a served
// formation named by `last` and by a prefix of its frm_ id.
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>

using namespace mur::test;
using json = nlohmann::json;

namespace {

std::string manifest_saying(const std::string& name) {
  return "name: " + name + "\n"
         "version: 1.0.0\n"
         "inference: {transport: script, turns: [{reply: \"" + name + ": {{task}}\"}]}\n"
         "lifecycle: {task_acceptance: single, after_task: sleep}\n"
         "network: {authentication: {scheme: bearer}}\n";
}

// A capsule folder and a workdir for one session, run in a home shared with another.
struct Session {
  TempDir folder, work;
  std::unique_ptr<LaunchedMur> run;
  std::string id;
  Session(const std::string& name, const std::map<std::string, std::string>& env) {
    std::ofstream(folder.path + "/murmur.yaml") << manifest_saying(name);
    run = std::make_unique<LaunchedMur>(
      std::vector<std::string>{MUR_BINARY, "run", "--manifest", folder.path, "--json", "--workdir", work.path}, env);
    const json ready = json::parse(run->read_line(), nullptr, false);
    REQUIRE(ready.is_object());
    id = ready["session_id"];
  }
};

} // namespace

TEST_CASE("last, a unique prefix and an ambiguous one name sessions for mur send, trace show and stop", "[process][cli][ids]") {
  IsolatedHome home;
  Session one("one", home.env);
  Session two("two", home.env); // started after one: its id is the newer
  std::size_t same = 0;
  while (one.id[same] == two.id[same]) ++same;
  REQUIRE(same >= 4);
  const std::string prefix_of_one = one.id.substr(0, same + 1), prefix_of_two = two.id.substr(0, same + 1);

  Ran last = run_command({MUR_BINARY, "send", "last", "hello"}, home.env);
  INFO(last.err);
  CHECK(last.exit_code == 0);
  CHECK(last.out == "two: hello\n");

  Ran by_prefix = run_command({MUR_BINARY, "send", prefix_of_one, "hello"}, home.env);
  CHECK(by_prefix.exit_code == 0);
  CHECK(by_prefix.out == "one: hello\n");
  Ran by_hex = run_command({MUR_BINARY, "send", prefix_of_one.substr(4), "hex"}, home.env); // without ses_
  CHECK(by_hex.exit_code == 0);
  CHECK(by_hex.out == "one: hex\n");

  Ran both = run_command({MUR_BINARY, "send", one.id.substr(0, same), "hello"}, home.env);
  CHECK(both.exit_code == 1);
  CHECK(both.err.find("error[E-ID-001]: '" + one.id.substr(0, same) + "' is the start of 2 ids:\n  " + one.id + "\n  " + two.id +
                      "\n") != std::string::npos);
  CHECK(both.err.find("Fix: type more of the id, enough to name only one of them") != std::string::npos);
  Ran both_json = run_command({MUR_BINARY, "send", "ses_", "hello", "--json"}, home.env);
  CHECK(both_json.exit_code == 1);
  CHECK(json::parse(both_json.out, nullptr, false)["error"]["code"] == "E-ID-001");

  Ran none = run_command({MUR_BINARY, "send", "ses_fff", "hello"}, home.env); // ids begin with their mint time, never fff
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("error[E-ID-002]: 'ses_fff' is the start of no running formation or session id\n") != std::string::npos);
  CHECK(none.err.find("Fix: list what runs with mur ps") != std::string::npos);

  Ran shown = run_command({MUR_BINARY, "trace", "show", prefix_of_two}, home.env);
  INFO(shown.err);
  CHECK(shown.exit_code == 0);
  CHECK(shown.out.find(two.id) != std::string::npos);
  CHECK(shown.out.find("\"hello\"") != std::string::npos);

  // mur stop last stops the newer; then last is the older one.
  Ran stopped = run_command({MUR_BINARY, "stop", "last"}, home.env);
  CHECK(stopped.exit_code == 0);
  CHECK(stopped.out.find(two.id) != std::string::npos);
  CHECK(two.run->wait() == 0);
  Ran now_last = run_command({MUR_BINARY, "send", "last", "again"}, home.env);
  CHECK(now_last.exit_code == 0);
  CHECK(now_last.out == "one: again\n");

  Ran stop_one = run_command({MUR_BINARY, "stop", prefix_of_one}, home.env);
  CHECK(stop_one.exit_code == 0);
  CHECK(one.run->wait() == 0);
  Ran nothing = run_command({MUR_BINARY, "send", "last", "anyone?"}, home.env);
  CHECK(nothing.exit_code == 1);
  CHECK(nothing.err.find("error[E-ID-002]: last names nothing: there is no running formation or session\n") != std::string::npos);
}

TEST_CASE("last and a prefix of a frm_ id name a served formation for mur send, trace show and stop", "[process][cli][ids]") {
  ServedFormation served;
  auto& env = served.f.env;
  const std::string prefix = served.frm.substr(0, 16);

  Ran by_last = run_command({MUR_BINARY, "send", "last", "Add a greeting"}, env);
  INFO(by_last.err);
  CHECK(by_last.exit_code == 0);
  CHECK(by_last.out.find("Add a greeting") != std::string::npos);
  Ran by_prefix = run_command({MUR_BINARY, "send", prefix, "Add a farewell"}, env);
  INFO(by_prefix.err);
  CHECK(by_prefix.exit_code == 0);
  CHECK(by_prefix.out.find("Add a farewell") != std::string::npos);

  Ran shown = run_command({MUR_BINARY, "trace", "show", "last"}, env, served.f.project.path);
  INFO(shown.err);
  CHECK(shown.exit_code == 0);
  CHECK(shown.out.find("formation " + served.frm) != std::string::npos);

  Ran stopped = run_command({MUR_BINARY, "stop", "LAST"}, env); // any case
  INFO(stopped.err);
  CHECK(stopped.exit_code == 0);
  CHECK(stopped.out.find(served.frm) != std::string::npos);
  CHECK(served.run.wait() == 128 + SIGTERM);
}
