// The edit-run loop and the Fixes that are right, with real `mur` processes: a roster member
// named by `path` is installed when its folder changed (mur run and mur doctor say so) and the
// edit is what answers; doctor warns W-ROS-007 when an installed copy differs from the project's
// source folder; `mur install` takes several folders, each reported, a refused one not losing
// the others; and each corrected Fix: a read-only project (no --workdir for --roster), an unset
// key variable the manifest already names, a version not installed (the installed ones listed),
// a mistyped key (did you mean), and doctor's probes of model servers and programs
// (E-MOD-001 down, E-MOD-011 no such model, E-HAR-001 python4; --no-probe skips them).
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "model_replay.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A `mur new` project (offline script capsules t-lead → t-worker) in its own home.
struct NewProject {
  TempDir home, where;
  std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
  std::string dir = where.path + "/t";
  NewProject() {
    Ran made = mur({"new", "t"}, where.path);
    if (made.exit_code != 0) throw std::runtime_error("mur new failed: " + made.err);
  }
  Ran mur(const std::vector<std::string>& args, const std::string& cwd = {}) const {
    std::vector<std::string> argv{MUR_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, env, cwd.empty() ? dir : cwd);
  }
  void roster(const std::string& members) const {
    std::ofstream(dir + "/roster.yaml") << "roster_version: 1\nmembers:\n" << members
                                        << "reachability:\n  - {from: lead, to: [worker]}\n";
  }
  void worker_replies(const std::string& reply) const {
    std::ifstream in(dir + "/capsules/worker/murmur.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string old = "reply: \"Done: {{task}}\"";
    REQUIRE(has(text, old));
    text.replace(text.find(old), old.size(), "reply: \"" + reply + ": {{task}}\"");
    std::ofstream(dir + "/capsules/worker/murmur.yaml") << text;
  }
};

const std::string by_path = "  - {name: lead,   path: capsules/lead, entry: true}\n"
                            "  - {name: worker, path: capsules/worker}\n";
const std::string pinned = "  - {name: lead,   capsule: t-lead,   version: 0.1.0, entry: true}\n"
                           "  - {name: worker, capsule: t-worker, version: 0.1.0}\n";

// The sha256 `mur list --json` shows for NAME in the project store.
std::string listed_sha(const NewProject& p, const std::string& name) {
  Ran list = p.mur({"list", "--json"});
  for (const auto& c : json::parse(list.out))
    if (c["name"] == name && c["scope"] == "project") return c["sha256"];
  return "";
}

// A loopback port nothing listens on (bound, then closed).
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

} // namespace

TEST_CASE("edit-run loop: a member named by path is installed when its folder changed, and the edit answers",
          "[process][loop]") {
  NewProject p;
  p.roster(by_path);
  Ran first = p.mur({"run", "--roster", ".", "--task", "say hello"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out == "The worker answered: Done: say hello\n");
  check_holds(first.err, {"[mur run] installed t-lead@0.1.0 from capsules/lead for member lead (new)\n",
                          "[mur run] installed t-worker@0.1.0 from capsules/worker for member worker (new)\n"});

  p.worker_replies("Finished"); // an edit, the version unchanged: no --force, no mur install
  Ran edited = p.mur({"run", "--roster", ".", "--task", "say hello"});
  INFO(edited.err);
  REQUIRE(edited.exit_code == 0);
  CHECK(edited.out == "The worker answered: Finished: say hello\n");
  CHECK(has(edited.err, "[mur run] installed t-worker@0.1.0 from capsules/worker for member worker (changed)\n"));
  CHECK_FALSE(has(edited.err, "for member lead")); // its folder did not change: nothing written, nothing said

  Ran again = p.mur({"run", "--roster", ".", "--task", "say hello"});
  CHECK(again.out == "The worker answered: Finished: say hello\n");
  CHECK_FALSE(has(again.err, "installed"));

  // doctor installs an edit the same way, says so, and admits exactly what the store now holds.
  std::ofstream(p.dir + "/capsules/worker/notes.md") << "a file added to the folder\n"; // an edit too
  Ran doctor = p.mur({"doctor", "--json"});
  INFO(doctor.out);
  CHECK(doctor.exit_code == 0);
  const json j = json::parse(doctor.out);
  REQUIRE(j["installed"].size() == 2);
  CHECK(j["installed"][1]["member"] == "worker");
  CHECK(j["installed"][1]["kind"] == "changed");
  CHECK(j["installed"][0]["kind"] == "unchanged");
  CHECK(j["roster"]["members"][1]["path"] == "capsules/worker");
  CHECK(j["installed"][1]["sha256"] == listed_sha(p, "t-worker"));
  Ran text = p.mur({"doctor"});
  CHECK(has(text.out, "  worker  t-worker@0.1.0         serves peers   authenticated door  from capsules/worker\n"));
  CHECK_FALSE(has(text.out, "installed t-worker")); // unchanged since the last doctor

  // path and capsule and version together: E-ROS-012.
  p.roster("  - {name: lead, path: capsules/lead, capsule: t-lead, version: 0.1.0, entry: true}\n"
           "  - {name: worker, path: capsules/worker}\n");
  Ran both = p.mur({"run", "--roster", ".", "--task", "x"});
  CHECK(both.exit_code == 1);
  CHECK(has(both.err, "error[E-ROS-012]: ./roster.yaml: members[0].path (member 'lead'): names the capsule by its folder"));
}

TEST_CASE("doctor warns W-ROS-007 when an installed capsule differs from the project's source folder of it",
          "[process][loop]") {
  NewProject p;
  REQUIRE(p.mur({"install", "capsules/lead", "capsules/worker"}).exit_code == 0);
  p.roster(pinned);
  Ran same = p.mur({"doctor"});
  CHECK(has(same.out, "All checks passed."));
  p.worker_replies("Edited");
  Ran doctor = p.mur({"doctor"});
  INFO(doctor.out);
  CHECK(doctor.exit_code == 0);
  check_holds(doctor.out, {"W-ROS-007: member 'worker' (t-worker@0.1.0) runs the copy in the project store",
                           "but capsules/worker holds the same capsule and version with other bytes",
                           "Fix: reinstall it from the project directory: mur install capsules/worker --force; or name "
                           "it by its folder in roster.yaml ({name: worker, path: capsules/worker})"});
  // The Fix works: after it, doctor passes and the edit answers.
  REQUIRE(p.mur({"install", "capsules/worker", "--force"}).exit_code == 0);
  CHECK(has(p.mur({"doctor"}).out, "All checks passed."));
  CHECK(p.mur({"run", "--roster", ".", "--task", "go"}).out == "The worker answered: Edited: go\n");
}

TEST_CASE("mur install takes several folders: each installed and reported, a refused one named, the others kept",
          "[process][loop][cli]") {
  NewProject p;
  fs::create_directories(p.dir + "/capsules/broken");
  std::ofstream(p.dir + "/capsules/broken/murmur.yaml") << "name: t-broken\n"; // no version
  Ran some = p.mur({"install", "capsules/broken", "capsules/lead", "capsules/worker"});
  INFO(some.out << some.err);
  CHECK(some.exit_code == 1);
  check_holds(some.out, {"installed t-lead@0.1.0 in the project store", "installed t-worker@0.1.0 in the project store"});
  check_holds(some.err, {"error[E-MAN-002]: capsules/broken/murmur.yaml: version: is required",
                         "installed 2 of 3 folders; refused: capsules/broken\n"});
  Ran list = p.mur({"list"});
  check_holds(list.out, {"t-lead@0.1.0", "t-worker@0.1.0"});

  fs::remove_all(p.dir + "/capsules/broken");
  Ran same = p.mur({"install", "capsules/lead", "capsules/worker"}); // identical bytes: a no-op, not a refusal
  INFO(same.err);
  CHECK(same.exit_code == 0);
  check_holds(same.out, {"already installed t-lead@0.1.0", "already installed t-worker@0.1.0"});
  p.worker_replies("Other");
  Ran other = p.mur({"install", "capsules/lead", "capsules/worker"});
  CHECK(other.exit_code == 1);
  check_holds(other.err, {"error[E-INS-002]: t-worker@0.1.0 is already installed in the project store with other bytes",
                          "installed 1 of 2 folders; refused: capsules/worker\n"});
  CHECK(has(other.out, "already installed t-lead@0.1.0"));
}

TEST_CASE("right Fixes: a read-only project, a wrong version, a mistyped key", "[process][loop][fixes]") {
  NewProject p;
  REQUIRE(p.mur({"install", "-g", "capsules/lead", "capsules/worker"}).exit_code == 0);
  p.roster(pinned);
  // The entry member cannot make its session in the project: the Fix is one --roster can follow.
  fs::create_directories(p.dir + "/.murmur");
  fs::permissions(p.dir + "/.murmur", fs::perms::owner_read | fs::perms::owner_exec);
  Ran ro = p.mur({"run", "--roster", ".", "--task", "hi"});
  fs::permissions(p.dir + "/.murmur", fs::perms::owner_all);
  INFO(ro.err);
  CHECK(ro.exit_code == 1);
  CHECK(has(ro.err, "E-RUN-007"));
  CHECK(has(ro.err, "Fix: make the project directory writable for your user (chmod u+w "));
  CHECK(has(ro.err, "or copy the project to a directory you can write to and run mur run --roster there"));
  CHECK_FALSE(has(ro.err, "pass --workdir"));

  p.roster("  - {name: lead,   capsule: t-lead,   version: 0.2.0, entry: true}\n"
           "  - {name: worker, capsule: t-worker, version: 0.1.0}\n");
  Ran version = p.mur({"doctor"});
  CHECK(version.exit_code == 1);
  CHECK(has(version.out, "E-ROS-007: ./roster.yaml: member 'lead' (t-lead@0.2.0): not installed at this version; the "
                         "installed versions of t-lead are 0.1.0 (global)"));
  CHECK(has(version.out, "Fix: use an installed version (t-lead@0.1.0), or install t-lead@0.2.0: "));

  p.roster("  - {name: lead,   capsule: t-lead,   version: 0.1.0, entyr: true}\n"
           "  - {name: worker, capsule: t-worker, version: 0.1.0}\n");
  Ran typo = p.mur({"doctor"});
  CHECK(typo.exit_code == 1);
  CHECK(has(typo.out, "E-ROS-001: ./roster.yaml: members[0].entyr: is not a known key (did you mean `entry`?)"));
  CHECK(has(typo.out, "Fix: write `entry` instead of `entyr`, or remove it;"));
}

TEST_CASE("right Fixes: an unset key variable the manifest already names is named, not asked for again",
          "[process][loop][fixes][models]") {
  ModelFormation m;
  m.lead_and_coder("lead-keyed", "  api_key: ${REPLAY_MODEL_KEY}\n");
  Ran r = m.run_task("add a flag"); // REPLAY_MODEL_KEY unset: the loopback server is called without a key
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  CHECK(has(r.err, "W-MOD-001"));
  CHECK(has(r.out + r.err, "E-MOD-010"));
  CHECK(has(r.out + r.err, "inference.api_key reads ${REPLAY_MODEL_KEY}, which was not set when the member started"));
  CHECK(has(r.out + r.err, "export REPLAY_MODEL_KEY=<your key> in the shell that runs mur"));
  CHECK_FALSE(has(r.out + r.err, "add api_key"));
}

TEST_CASE("doctor probes each http member's model server and each process member's program, and --no-probe skips",
          "[process][loop][fixes][models]") {
  ModelFormation m;
  m.capsule("fine", "lead");
  m.capsule("nomodel", "no-such-model");
  const std::string down = m.capsules.path + "/t-down";
  fs::create_directories(down);
  std::ofstream(down + "/murmur.yaml") << "name: t-down\nversion: 1.0.0\ninference:\n  transport: http\n"
                                       << "  endpoint: http://127.0.0.1:" << closed_port() << "/v1\n  model: lead\n";
  m.f.install(down);
  const std::string py4 = m.capsules.path + "/t-py4";
  fs::create_directories(py4);
  std::ofstream(py4 + "/murmur.yaml") << "name: t-py4\nversion: 1.0.0\ninference: {transport: process, command: [python4, agent.py]}\n";
  std::ofstream(py4 + "/agent.py") << "print('hi')\n";
  m.f.install(py4);
  auto doctor = [&](const std::string& member, const std::vector<std::string>& extra = {}) {
    m.roster({member}, {});
    std::vector<std::string> argv{MUR_BINARY, "doctor", m.f.project.path};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv, m.f.env);
  };
  Ran fine = doctor("fine");
  INFO(fine.out);
  CHECK(fine.exit_code == 0);
  CHECK(has(fine.out, "  probed member 'fine' (t-fine@1.0.0): lead at " + m.replay.endpoint() + "\n"));

  Ran nomodel = doctor("nomodel");
  CHECK(nomodel.exit_code == 1);
  CHECK(has(nomodel.out, "E-MOD-011: member 'nomodel' (t-nomodel@1.0.0): the model server at " + m.replay.endpoint() +
                         " does not list the model 'no-such-model' (GET /models lists "));
  CHECK(has(nomodel.out, "Fix: set inference.model to a model the server lists"));

  Ran off = doctor("down");
  CHECK(off.exit_code == 1);
  CHECK(has(off.out, "E-MOD-001: member 'down' (t-down@1.0.0): the model server at http://127.0.0.1:"));
  CHECK(has(off.out, "Fix: start the model server, or correct inference.endpoint"));

  Ran python4 = doctor("py4");
  CHECK(python4.exit_code == 1);
  CHECK(has(python4.out, "E-HAR-001: member 'py4' (t-py4@1.0.0): inference.command[0] 'python4'"));

  for (const char* member : {"down", "py4", "nomodel"}) { // offline: none of it is asked
    Ran skipped = doctor(member, {"--no-probe"});
    INFO(skipped.out);
    CHECK(skipped.exit_code == 0);
    CHECK(has(skipped.out, "All checks passed."));
  }
}
