// `mur run --roster` with real member processes: a --task launch answers and every member's
// trace names the formation (peers record formation_ended; the calls are traced); --json prints
// the formation line, the entry's readiness line and the answer; a peer that cannot start fails
// the launch with E-RUN-045 and exit 1 (here: its installed copy changed after admission),
// leaving nothing running and a complete formation directory; each member runs in its own
// working directory (peers in theirs, the entry in the project) while a relative --task @FILE
// is read by the launcher; a formations/ that is a file fails every peer by name; no token
// appears on any output or in any file but the running records.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string answer =
  "Lead's summary. Coder: patch written for 'Make this change and have it reviewed: add a flag'. Reviewer said: "
  "Approved: the patch does what was asked.\n";

bool has_event(const std::vector<json>& trace, const std::string& type) {
  for (const auto& e : trace)
    if (e.value("event_type", "") == type) return true;
  return false;
}

const json* call_to(const std::vector<json>& trace, const std::string& member) {
  for (const auto& e : trace)
    if (e.value("event_type", "") == "member_call" && e.value("member", "") == member) return &e;
  return nullptr;
}

// `mur run --roster --task @task.txt` of f's project, run in `dir` where task.txt holds `text`;
// REQUIREs it to end 0.
Ran run_task_file(const FormationFixture& f, const TempDir& dir, const std::string& text) {
  std::ofstream(dir.path + "/task.txt") << text;
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "@task.txt"}, f.env, dir.path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

void no_tokens(const FormationFixture& f, const std::vector<const std::string*>& outputs) {
  for (const auto& t : token_prefixes) {
    for (const auto* o : outputs) CHECK(o->find(t) == std::string::npos);
    CHECK(f.files_containing(t).empty());
  }
}

} // namespace

TEST_CASE("run --roster --task: the answer, and every member's trace names the formation", "[process][formation]") {
  FormationFixture f;
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag"}, f.env);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == answer);
  const std::string frm = formation_id_in(r.err);
  REQUIRE(!frm.empty());
  CHECK(r.err.find("[mur run] ready  coder") != std::string::npos);
  CHECK(r.err.find("[mur run] ready  reviewer") != std::string::npos);

  auto traces = f.traces(frm);
  REQUIRE(traces.size() == 3);
  for (const auto& [name, trace] : traces) {
    INFO(name);
    CHECK(trace.front()["formation_id"] == frm);
    CHECK(trace.back().value("event_type", "") == "session_end");
  }
  CHECK(has_event(traces["coder"], "formation_ended"));
  CHECK(has_event(traces["reviewer"], "formation_ended"));
  const json* lead_call = call_to(traces["lead"], "coder");
  REQUIRE(lead_call);
  CHECK((*lead_call)["status"] == "completed");
  const json* coder_call = call_to(traces["coder"], "reviewer");
  REQUIRE(coder_call);
  CHECK((*coder_call)["status"] == "completed");

  // The peers worked in fresh owner-only directories beside the marker.
  const std::string fdir = f.home.path + "/formations/" + frm;
  struct stat st {};
  REQUIRE(::stat((fdir + "/coder").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat((fdir + "/formation.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  json marker = json::parse(read_bytes(fdir + "/formation.json"));
  CHECK(marker["project_dir"] == fs::canonical(f.project.path).string());

  CHECK(fs::is_empty(f.home.path + "/running")); // every record, the launcher's too, is gone
  CHECK(formation_processes(frm).empty());
  no_tokens(f, {&r.out, &r.err});
}

TEST_CASE("run --roster --json: formation line, entry readiness line, answer line", "[process][formation]") {
  FormationFixture f;
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path + "/roster.yaml", "--task", "add a flag", "--json"},
                      f.env);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  std::vector<json> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l, nullptr, false));
  REQUIRE(lines.size() == 3);
  const json& formation = lines[0];
  CHECK(formation["entry"] == "lead");
  const std::string frm = formation["formation_id"];
  REQUIRE(formation["peers"].size() == 2);
  CHECK(formation["peers"][0]["name"] == "coder");
  CHECK(formation["peers"][1]["name"] == "reviewer");
  CHECK(formation["peers"][0]["workdir"] == f.home.path + "/formations/" + frm + "/coder");
  CHECK(lines[1]["formation_id"] == frm);
  CHECK(lines[1]["name"] == "review-lead");
  CHECK(lines[2]["state"] == "completed");
  CHECK(lines[2]["answer"].get<std::string>() + "\n" == answer);
  no_tokens(f, {&r.out, &r.err});
}

TEST_CASE("a peer that cannot start fails the launch: E-RUN-045, exit 1, nothing left", "[process][formation]") {
  FormationFixture f;
  // The reviewer is admitted, but its installed copy changes after admission: a member
  // re-verifies its capsule's bytes when it starts, so its process refuses to start (E-RUN-008).
  // The copy's script calls the lead, which the roster forbids: the launcher warns about that
  // on stderr right after admission and before it starts anyone, and the test holds it there
  // (stderr full) while it changes the installed bytes.
  TempDir broken;
  std::string manifest = read_bytes(f.example_dir + "/capsules/reviewer/murmur.yaml");
  manifest.replace(manifest.find("version: 1.0.0"), 14, "version: 9.0.0");
  const std::string routes = "  routes:\n";
  manifest.replace(manifest.find(routes), routes.size(),
                   routes + "    - match: \"ASK-LEAD\"\n      turns:\n        - call: {member: lead, task: \"{{task}}\"}\n");
  std::ofstream(broken.path + "/murmur.yaml") << manifest;
  f.install(broken.path);
  std::string roster = read_bytes(f.project.path + "/roster.yaml");
  roster.replace(roster.find("capsule: review-reviewer, version: 1.0.0"), 40, "capsule: review-reviewer, version: 9.0.0");
  std::ofstream(f.project.path + "/roster.yaml") << roster;
  const std::string installed = f.home.path + "/artifacts/review-reviewer/9.0.0/murmur.yaml";
  REQUIRE(fs::exists(installed));

  Ran r = run_command_held({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag"}, f.env, [&] {
    std::string changed = read_bytes(installed);
    changed.replace(changed.find("Approved:"), 9, "Accepted:");
    std::ofstream(installed, std::ios::trunc) << changed;
  });
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find("error[E-RUN-045]") != std::string::npos);
  // Each failure as 'name' (capsule@ver): reason, then its stderr tail, then every member whose
  // process had been started (both peers were, at once; the entry never was).
  CHECK(std::regex_search(r.err, std::regex("\n  'reviewer' \\(review-reviewer@9\\.0\\.0\\): it exited \\(code [0-9]+\\) "
                                             "before reporting its session\n    \\| ")));
  CHECK(std::regex_search(r.err, std::regex("\n  stopped: coder \\(pid [0-9]+\\), reviewer \\(pid [0-9]+\\)\n")));
  CHECK(r.err.find("warning[W-ROS-002]") != std::string::npos);
  CHECK(r.err.find("no longer match the sha256 recorded at install") != std::string::npos); // the reviewer's own words
  CHECK(r.err.find("'coder'") == std::string::npos);
  const std::string frm = formation_id_in(r.err);
  REQUIRE(!frm.empty());
  CHECK(formation_processes(frm).empty());
  CHECK(fs::is_empty(f.home.path + "/running"));
  // The formation directory is whole: its marker, and only member directories beside it.
  const std::string fdir = f.home.path + "/formations/" + frm;
  CHECK(json::parse(read_bytes(fdir + "/formation.json"), nullptr, false).is_object());
  for (const auto& e : fs::directory_iterator(fdir))
    CHECK((e.path().filename() == "formation.json" || e.is_directory()));
  CHECK_FALSE(fs::exists(f.project.path + "/.murmur")); // the entry never started
  no_tokens(f, {&r.out, &r.err});
}

TEST_CASE("examples/fanout: the entry calls three members in one turn", "[process][formation]") {
  FormationFixture f("fanout");
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "the draft"}, f.env);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out ==
        "Editor's merge. facts: facts checked it: nothing to fix. | style: style checked it: nothing to fix. | "
        "risks: risks checked it: nothing to fix.\n");
  auto traces = f.traces(formation_id_in(r.err));
  REQUIRE(traces.size() == 4);
  for (const char* m : {"facts", "style", "risks"}) {
    const json* c = call_to(traces["editor"], m);
    REQUIRE(c);
    CHECK((*c)["status"] == "completed");
  }
}

TEST_CASE("a task read from a file reaches the entry as its text, even when the text begins with @",
          "[process][formation]") {
  FormationFixture f;
  TempDir elsewhere;
  // Read again as a file name, the entry would look for "nowhere.txt" and fail to start.
  Ran r = run_task_file(f, elsewhere, "@nowhere.txt add a flag");
  INFO(r.err);
  bool seen = false;
  for (auto& [member, lines] : f.traces(formation_id_in(r.err)))
    for (auto& e : lines)
      if (member == "lead" && e.value("event_type", "") == "a2a_task_received") seen = true;
  CHECK(seen);
  CHECK(r.err.find("E-RUN-009") == std::string::npos);
}

TEST_CASE("each member runs in its own directory, and a relative --task @FILE is read by the launcher",
          "[process][formation]") {
  FormationFixture f;
  TempDir elsewhere;
  Ran r = run_task_file(f, elsewhere, "add a flag");
  INFO(r.err);
  CHECK(r.out == answer);

  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--json"}, f.env, elsewhere.path);
  json formation = json::parse(run.read_line(), nullptr, false);
  json entry = json::parse(run.read_line(), nullptr, false);
  REQUIRE(formation.is_object());
  REQUIRE(entry.is_object());
  auto cwd_of = [](std::int64_t pid) {
    char buf[4096];
    ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/cwd").c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
  };
  REQUIRE(formation["peers"].size() == 2);
  for (const auto& p : formation["peers"]) {
    INFO(p.dump());
    CHECK(cwd_of(p["pid"].get<std::int64_t>()) == fs::canonical(p["workdir"].get<std::string>()).string());
  }
  CHECK(cwd_of(entry["pid"].get<std::int64_t>()) == fs::canonical(f.project.path).string());
  run.signal(SIGTERM);
  CHECK(run.wait() == 128 + SIGTERM);
}

TEST_CASE("formations/ is a file: every peer fails by name, exit 1, nothing left running", "[process][formation]") {
  FormationFixture f;
  std::ofstream(f.home.path + "/formations") << "not a directory\n";
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "add a flag"}, f.env);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find("error[E-RUN-045]") != std::string::npos);
  const std::string frm = formation_id_in(r.err);
  REQUIRE(!frm.empty());
  for (const std::string name : {"coder", "reviewer"}) {
    const std::string capsule = "review-" + name + "@1.0.0";
    CHECK(r.err.find("\n  '" + name + "' (" + capsule + "): its directory " + f.home.path + "/formations/" + frm + "/" +
                     name + " could not be made") != std::string::npos);
  }
  CHECK(r.err.find("\n  stopped: none\n") != std::string::npos);
  CHECK(formation_processes(frm).empty());
  CHECK(fs::is_regular_file(f.home.path + "/formations"));
  CHECK(fs::is_empty(f.home.path + "/running"));
  CHECK_FALSE(fs::exists(f.project.path + "/.murmur")); // the entry never started
}

TEST_CASE("a launch task too large for an argument reaches the entry on its stdin and no command line holds it",
          "[process][formation]") {
  FormationFixture f;
  TempDir elsewhere;
  const std::string marker = "launch-marker-" + std::to_string(::getpid()) + "-q7";
  // 1 MiB less 4 KiB: eight times what one argument may hold (128 KiB), and as much as the lead's
  // call to the coder can carry through a door (1 MiB a body, with the call's own words).
  std::ofstream(elsewhere.path + "/task.txt") << marker << " add a flag " << std::string(1024 * 1024 - 4096, 'x');
  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--task", "@" + elsewhere.path + "/task.txt"}, f.env);
  // While the formation runs, every process's command line is read, again and again.
  // (The launcher's own `@FILE` argument is found by the same scan: it does read command lines.)
  const std::string file_arg = "@" + elsewhere.path + "/task.txt";
  std::atomic<bool> running{true}, seen{false}, seen_file_arg{false};
  std::thread scan([&] {
    while (running && !seen) {
      std::error_code ec; // processes come and go while /proc is read
      for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string cmdline = read_bytes(it->path().string() + "/cmdline");
        if (cmdline.find(marker) != std::string::npos) seen = true;
        if (cmdline.find(file_arg) != std::string::npos) seen_file_arg = true;
      }
    }
  });
  struct StopScan { // also when read_line throws: a joinable thread must never be destroyed
    std::atomic<bool>& running;
    std::thread& scan;
    ~StopScan() {
      running = false;
      if (scan.joinable()) scan.join();
    }
  } stop{running, scan};
  const std::string answer = run.read_line();
  const int code = run.wait();
  running = false;
  scan.join();
  INFO(run.err());
  INFO("the answer begins: " << answer.substr(0, 300));
  CHECK(code == 0);
  CHECK(answer.find("patch written for 'Make this change and have it reviewed: " + marker + " add a flag xxx") !=
        std::string::npos);
  CHECK_FALSE(seen);
  CHECK(seen_file_arg);
}
