// The real `mur` binary on the example rosters: `mur doctor` output and exit codes, and the
// install → list → doctor path a newcomer takes, in an isolated MURMUR_HOME.
#include "formation_fixture.hpp"
#include "run_command.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using mur::test::check_holds;
using mur::test::Ran;
using mur::test::run_command;
using mur::test::TempDir;

namespace {

const std::string mur_bin = MUR_BINARY;
const std::string examples = std::string(MUR_SOURCE_DIR) + "/examples";

struct Home {
  TempDir dir;
  std::map<std::string, std::string> env() const { return {{"MURMUR_HOME", dir.path}}; }
  Ran mur(std::vector<std::string> args, const std::string& cwd = {}) const {
    args.insert(args.begin(), mur_bin);
    return run_command(args, env(), cwd);
  }
  // Installs every example capsule into the global store.
  void install_examples() const {
    for (const char* c : {"review/capsules/lead", "review/capsules/coder", "review/capsules/reviewer",
                          "broken/capsules/quiet-worker", "broken/capsules/open-worker"}) {
      Ran r = mur({"install", "-g", examples + "/" + c});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
    }
  }
  // `mur doctor ROSTER_DIR` passes (exit 0), its report holding each of `holds`.
  void doctor_passes(const std::string& roster_dir, const std::vector<std::string>& holds) const {
    Ran r = mur({"doctor", roster_dir});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    check_holds(r.out, holds);
  }
};

} // namespace

TEST_CASE("mur doctor admits the review example once its capsules are installed", "[process][doctor]") {
  Home home;
  Ran before = home.mur({"doctor", examples + "/review"});
  CHECK(before.exit_code == 1);
  CHECK(before.out.find("E-ROS-007") != std::string::npos);
  CHECK(before.out.find("Fix: install it") != std::string::npos);

  home.install_examples();
  home.doctor_passes(examples + "/review", {"No murmur.yaml in", "Roster\n",
                                            "lead      review-lead@1.0.0      entry  refuses peers  authenticated door",
                                            "reviewer  review-reviewer@1.0.0         serves peers   authenticated door",
                                            "reachability: lead \xE2\x86\x92 coder, coder \xE2\x86\x92 reviewer",
                                            "All checks passed."});
}

TEST_CASE("mur doctor shows each broken roster's code and a Fix line", "[process][doctor]") {
  Home home;
  home.install_examples();
  const std::vector<std::pair<std::string, std::string>> cases{
    {"bad-shape", "E-ROS-001"},    {"duplicate-name", "E-ROS-003"}, {"no-entry", "E-ROS-002"},
    {"unknown-member", "E-ROS-004"}, {"calls-entry", "E-ROS-008"},  {"not-installed", "E-ROS-007"},
    {"no-consent", "E-ROS-005"},   {"public-door", "E-ROS-006"}};
  for (const auto& [dir, code] : cases) {
    Ran r = home.mur({"doctor", examples + "/broken/" + dir});
    INFO(dir << "\n" << r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("\xE2\x9C\x97  " + code + ": ") != std::string::npos);
    CHECK(r.out.find("1 error found.") != std::string::npos);
    CHECK(r.out.find("\nFix: ") != std::string::npos);
    CHECK(r.err.empty());
  }
}

TEST_CASE("mur doctor reports W-ROS-001 as a warning with a Fix line and exits 0", "[process][doctor]") {
  Home home;
  home.install_examples();
  home.doctor_passes(examples + "/broken/busy-warning",
                     {"W-ROS-001: member 'reviewer' (review-reviewer@1.0.0) may be called by 3 members (coder-a, coder-b, "
                      "coder-c) but holds 2 task(s) at once",
                      "0 errors found, ", "Fix: in review-reviewer's murmur.yaml set lifecycle.queue_depth: 2"});
}

TEST_CASE("mur doctor in the current directory and on an empty directory", "[process][doctor]") {
  Home home;
  home.install_examples();
  Ran here = home.mur({"doctor"}, examples + "/review");
  CHECK(here.exit_code == 0);
  TempDir empty;
  Ran none = home.mur({"doctor", empty.path});
  CHECK(none.exit_code == 1);
  CHECK(none.out.find("E-ROS-001") != std::string::npos);
}

TEST_CASE("mur install, list and the project store", "[process][store]") {
  Home home;
  TempDir project;
  Ran r = home.mur({"install", examples + "/review/capsules/coder"}, project.path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("installed review-coder@1.0.0 in the project store") != std::string::npos);
  CHECK(std::filesystem::exists(project.path + "/.murmur/artifacts/review-coder/1.0.0/murmur.yaml"));

  Ran again = home.mur({"install", examples + "/review/capsules/coder"}, project.path);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("already installed") != std::string::npos);

  Ran list = home.mur({"list", "--json"}, project.path);
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("\"name\":\"review-coder\"") != std::string::npos);
  CHECK(list.out.find("\"scope\":\"project\"") != std::string::npos);
  CHECK(list.out.find("\"intact\":true") != std::string::npos);

  // Tampering with the stored bytes shows in list and in admission.
  {
    std::ofstream f(project.path + "/.murmur/artifacts/review-coder/1.0.0/murmur.yaml", std::ios::app);
    f << "# changed\n";
  }
  Ran human = home.mur({"list"}, project.path);
  CHECK(human.out.find("DAMAGED: its bytes no longer match") != std::string::npos);
}

TEST_CASE("mur refuses bad usage with exit 2 and unknown input with a code", "[process][cli]") {
  Home home;
  CHECK(home.mur({}).exit_code == 2);
  CHECK(home.mur({"frobnicate"}).exit_code == 2);
  CHECK(home.mur({"install"}).exit_code == 2);
  CHECK(home.mur({"run", "--deadline", "soon", "--roster", "."}).exit_code == 2);
  for (const char* cmd : {"install", "list", "doctor", "run", "send", "stop", "ps", "trace"}) {
    Ran help = home.mur({cmd, "--help"});
    INFO(cmd);
    CHECK(help.exit_code == 0);
    CHECK(!help.out.empty());
  }
  Ran missing = home.mur({"install", "/nonexistent/capsule"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("error[E-INS-001]") != std::string::npos);
  CHECK(missing.err.find("Fix: ") != std::string::npos);
  Ran ps = home.mur({"ps"});
  CHECK(ps.exit_code == 0);
  CHECK(ps.out == "nothing is running\n");
}

TEST_CASE("examples/delegation runs as its README says", "[process][doctor][delegation]") {
  Home home;
  for (const char* c : {"planner", "researcher", "summarizer"}) {
    Ran r = home.mur({"install", "-g", examples + "/delegation/capsules/" + c});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  Ran doctor = home.mur({"doctor", examples + "/delegation"});
  INFO(doctor.out << doctor.err);
  CHECK(doctor.exit_code == 0);
  CHECK(doctor.out.find("delegation: planner \xE2\x86\x92 summarizer@1.0.0") != std::string::npos);
  TempDir work; // the entry's sessions go to the roster's project directory: a copy, not the source tree
  std::filesystem::copy(examples + "/delegation", work.path + "/delegation", std::filesystem::copy_options::recursive);
  Ran run = home.mur({"run", "--roster", work.path + "/delegation", "--task", "the release notes"});
  INFO(run.out << run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out == "Plan. research: three sources agree (Find the facts about: the release notes) | summary: in short: "
                   "Summarize in one line: the release notes\n");
}
