// The ceiling of live members and children (docs/roster.md §Limits) with real processes: three
// capsules that each delegate to the other two, under a roster whose limits.max_live leaves room
// for two children. The lead's third delegation and every delegation its children try find no
// slot in the formation's live ledger — a ledger the children reach through their grants, in
// processes of their own — and the formation still answers.
#include <catch2/catch.hpp>

#include "capsule_folder.hpp"
#include "formation_fixture.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> bombs{"bomb-x", "bomb-y", "bomb-z"};

std::string delegate_to(const std::vector<std::string>& to) {
  std::string many;
  for (const auto& c : to) many += std::string(many.empty() ? "" : ", ") + "{capsule: " + c + ", task: again}";
  return "    - delegate: [" + many + "]\n";
}

std::string spawn_allow(const std::vector<std::string>& to) {
  std::string list;
  for (const auto& c : to) list += std::string(list.empty() ? "" : ", ") + c + "@1.0.0";
  return "capabilities:\n  network: {allow: [localhost]}\n  spawn: {allow: [" + list + "]}\n";
}

std::vector<json> trace_events(const std::string& path, const std::string& type) {
  std::istringstream in(read_bytes(path));
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) {
    auto e = json::parse(line, nullptr, false);
    if (e.is_object() && e.value("event_type", "") == type) out.push_back(e);
  }
  return out;
}

struct BombProject : IsolatedHome {
  TempDir project, capsules;

  BombProject() {
    std::ofstream(project.path + "/roster.yaml")
      << "roster_version: 1\nmembers:\n  - {name: lead, capsule: bomb-lead, version: 1.0.0, entry: true}\n"
         "limits: {max_live: 3}\n";
    install("bomb-lead", "inference:\n  transport: script\n  turns:\n" + delegate_to(bombs) +
                           "    - reply: \"lead: {{tool_results}} || {{answers}}\"\n"
                           "lifecycle: {task_acceptance: single, after_task: exit}\n" + spawn_allow(bombs));
    for (const auto& name : bombs) {
      std::vector<std::string> others;
      for (const auto& o : bombs)
        if (o != name) others.push_back(o);
      install(name, "inference:\n  transport: script\n  turns:\n" + delegate_to(others) +
                      "    - reply: \"" + name + ": {{tool_results}}\"\n" + spawn_allow(others));
    }
  }

  void install(const std::string& name, const std::string& rest) {
    const std::string dir = capsules.path + "/" + name;
    fs::create_directories(dir);
    std::ofstream(dir + "/murmur.yaml") << "name: " << name << "\nversion: 1.0.0\ndescription: a bomb\n" << rest;
    Ran r = run_command({MUR_BINARY, "install", dir}, env, project.path);
    if (r.exit_code != 0) throw std::runtime_error("mur install " + name + " failed: " + r.err);
  }
};

} // namespace

TEST_CASE("a fan-out of capsules delegating to each other stops at the formation's ceiling of live members and "
          "children, across processes", "[process][delegation][limits]") {
  BombProject p;
  Ran r = run_command({MUR_BINARY, "run", "--roster", p.project.path, "--task", "go"}, p.env, p.project.path);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("lead: ") != std::string::npos);
  CHECK(r.out.find("limits.max_live") != std::string::npos);

  std::string lead_dir;
  for (const auto& e : fs::directory_iterator(p.project.path + "/.murmur"))
    if (e.path().filename().string().rfind("ses_", 0) == 0) lead_dir = e.path().string();
  REQUIRE(!lead_dir.empty());
  // The lead's three delegations asked for slots in one turn, before any child could: two found
  // one, the third (whichever it was) none.
  auto refused = trace_events(lead_dir + "/trace.jsonl", "call_refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["cause"] == "live_ceiling");
  CHECK(refused[0]["reason"].get<std::string>().find("ceiling of 3 live members and delegated children") !=
        std::string::npos);
  auto started = trace_events(lead_dir + "/trace.jsonl", "delegation_start");
  auto ended = trace_events(lead_dir + "/trace.jsonl", "delegation");
  REQUIRE(started.size() == 2);
  REQUIRE(ended.size() == 2);
  for (const auto& e : ended) CHECK(e["status"] == "completed");
  // Every child, a process of its own, took its slots from the same ledger: whatever it asked
  // for while its sibling was alive was refused (the first to answer gives its slot back, so the
  // other may then start one more), and the tree never went past the depth limit either.
  int refusals_below = 0;
  for (auto it = fs::recursive_directory_iterator(lead_dir + "/children"); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() != "trace.jsonl") continue;
    for (const auto& e : trace_events(it->path().string(), "call_refused")) {
      INFO(e.dump());
      CHECK(e["cause"] == "live_ceiling");
      ++refusals_below;
    }
  }
  CHECK(refusals_below >= 2);

  // The ledger the launcher made: the roster's ceiling and its one member.
  const std::string frm = trace_events(lead_dir + "/trace.jsonl", "session_start").at(0)["formation_id"];
  auto limit = json::parse(read_bytes(p.home.path + "/formations/" + frm + "/.live/limit.json"));
  CHECK(limit == json{{"max_live", 3}, {"members", 1}});
}

TEST_CASE("a roster with more members than limits.max_live is refused with E-ROS-011 before anything starts",
          "[process][delegation][limits]") {
  BombProject p;
  std::ofstream(p.project.path + "/roster.yaml")
    << "roster_version: 1\nmembers:\n  - {name: lead, capsule: bomb-lead, version: 1.0.0, entry: true}\n"
       "  - {name: other, capsule: bomb-lead, version: 1.0.0}\nlimits: {max_live: 1}\n";
  Ran r = run_command({MUR_BINARY, "run", "--roster", p.project.path, "--task", "go"}, p.env, p.project.path);
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("E-ROS-011") != std::string::npos);
  CHECK(r.err.find("Fix:") != std::string::npos);
  CHECK_FALSE(fs::exists(p.home.path + "/formations"));
  Ran d = run_command({MUR_BINARY, "doctor", p.project.path}, p.env, p.project.path);
  CHECK(d.exit_code != 0);
  CHECK((d.out + d.err).find("E-ROS-011") != std::string::npos);
}
