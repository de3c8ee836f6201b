// Every admission code at least once, and the order between codes when two faults coexist.
#include "launcher/admission/admission.hpp"
#include "messages/vocabulary/failure.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Stores {
  fs::path root = fs::temp_directory_path() /
                  ("mur-admit-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
  mur::StoreRoots roots{(root / "project/.murmur/artifacts").string(), (root / "home/artifacts").string()};

  static int& counter() {
    static int n = 0;
    return n;
  }
  Stores() { fs::create_directories(root); }
  ~Stores() { fs::remove_all(root); }

  // Writes a capsule folder and installs it into the global (or project) store.
  void capsule(const std::string& name, const std::string& extra, bool global = true,
               const std::string& version = "1.0.0") {
    fs::path src = root / "src" / (name + "-" + version);
    fs::create_directories(src);
    std::ofstream(src / "murmur.yaml") << "name: " << name << "\nversion: " << version << "\n" << extra;
    mur::install_capsule(src.string(), global ? roots.global : roots.project,
                         global ? mur::StoreScope::global : mur::StoreScope::project, false);
  }
  // A callee that accepts peer tasks behind an authenticated door.
  void callee(const std::string& name, const std::string& lifecycle = "{task_acceptance: queue, after_task: sleep}") {
    capsule(name, "lifecycle: " + lifecycle +
                    "\nexports: {peer_tasks: {accept: true}}\nnetwork: {authentication: {scheme: bearer}}\n"
                    "capabilities: {network: {allow: [localhost]}}\n");
  }
  void caller(const std::string& name) {
    capsule(name, "capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n");
  }

  mur::Admission admit(const std::string& roster_text) {
    auto r = mur::parse_roster(roster_text, "roster.yaml");
    r.file = "roster.yaml";
    r.project_dir = (root / "project").string();
    return mur::admit(r, roots);
  }
  mur::Failure refusal(const std::string& roster_text) {
    try {
      admit(roster_text);
    } catch (const mur::Failure& f) {
      return f;
    }
    FAIL("admitted:\n" << roster_text);
    throw;
  }
};

std::string roster(const std::string& members, const std::string& reach = "") {
  return "roster_version: 1\nmembers:\n" + members + (reach.empty() ? "" : "reachability:\n" + reach);
}
const std::string m_lead = "  - {name: lead, capsule: lead-c, version: 1.0.0, entry: true}\n";
const std::string m_a = "  - {name: a, capsule: worker-c, version: 1.0.0}\n";
const std::string m_b = "  - {name: b, capsule: worker-c, version: 1.0.0}\n";

void check_code(const mur::Failure& f, const std::string& code, const std::string& fragment) {
  INFO(f.code() << " " << f.message());
  CHECK(f.code() == code);
  CHECK(f.message().find(fragment) != std::string::npos);
  CHECK_FALSE(f.fix().empty());
}

} // namespace

TEST_CASE("admission binds each member and expands edges in roster order", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c", "{task_acceptance: queue, queue_depth: 1, after_task: sleep}");
  auto a = s.admit(roster(m_lead + m_a + m_b, "  - {from: lead, to: [b, a, b]}\n  - {from: a, to: [b]}\n"));
  CHECK(a.entry == 0);
  CHECK(a.entry_member().declared.name == "lead");
  CHECK(a.edges == std::vector<mur::Edge>{{"lead", "a"}, {"lead", "b"}, {"a", "b"}});
  CHECK(a.members[0].callees == std::vector<std::string>{"a", "b"});
  CHECK(a.members[2].callers == std::vector<std::string>{"lead", "a"});
  CHECK(a.members[1].capsule.stored.sha256.size() == 64);
  CHECK(a.members[1].capsule.stored.scope == mur::StoreScope::global);
  CHECK(a.warnings.empty());
}

TEST_CASE("reachability: all — pairs of members that both accept, never into the entry", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c");
  auto a = s.admit(roster(m_lead + m_a + m_b, "") + "reachability: all\n");
  CHECK(a.edges == std::vector<mur::Edge>{{"a", "b"}, {"b", "a"}});
  CHECK(a.members[0].callees.empty());

  Stores t;
  t.callee("lead-c");
  t.callee("worker-c");
  auto b = t.admit(roster(m_lead + m_a, "") + "reachability: all\n");
  CHECK(b.edges == std::vector<mur::Edge>{{"lead", "a"}});
}

TEST_CASE("a roster with no edges admits public doors", "[admission]") {
  Stores s;
  s.capsule("lead-c", "");
  s.capsule("worker-c", "");
  auto a = s.admit(roster(m_lead + m_a));
  CHECK(a.edges.empty());
}

TEST_CASE("E-ROS-003: the first repeated name", "[admission]") {
  Stores s;
  check_code(s.refusal(roster(m_lead + m_a + m_a)), "E-ROS-003", "members[2].name: 'a' is already the name of members[1]");
}

TEST_CASE("E-ROS-002: no entry, or several", "[admission]") {
  Stores s;
  check_code(s.refusal(roster(m_a + m_b)), "E-ROS-002", "no member is the entry member");
  auto f = s.refusal(roster(m_lead + "  - {name: a, capsule: worker-c, version: 1.0.0, entry: true}\n" + m_b +
                            "  - {name: c, capsule: worker-c, version: 1.0.0, entry: true}\n"));
  check_code(f, "E-ROS-002", "lead, a, c");
}

TEST_CASE("E-ROS-004: from first, then each to", "[admission]") {
  Stores s;
  check_code(s.refusal(roster(m_lead + m_a, "  - {from: zed, to: [nope]}\n")), "E-ROS-004", "reachability[0].from: 'zed'");
  check_code(s.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a, nope]}\n")), "E-ROS-004", "reachability[0].to[1]: 'nope'");
}

TEST_CASE("E-ROS-008: a rule that calls the entry member", "[admission]") {
  Stores s;
  check_code(s.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n  - {from: a, to: [lead]}\n")),
             "E-ROS-008", "reachability[1].to: lists 'lead', the entry member");
}

TEST_CASE("E-ROS-007: missing, tampered or unparsable installed capsules", "[admission]") {
  Stores s;
  s.caller("lead-c");
  check_code(s.refusal(roster(m_lead + m_a)), "E-ROS-007", "member 'a' (worker-c@1.0.0): not installed");

  s.callee("worker-c");
  std::ofstream(fs::path(s.roots.global) / "worker-c/1.0.0/murmur.yaml", std::ios::app) << "# edited\n";
  check_code(s.refusal(roster(m_lead + m_a)), "E-ROS-007", "no longer match the sha256");

  fs::remove(fs::path(s.roots.global) / "worker-c/1.0.0/.sha256");
  check_code(s.refusal(roster(m_lead + m_a)), "E-ROS-007", "recorded sha256");
}

TEST_CASE("E-ROS-007: a misspelt capsule name is met with the installed one it most likely meant", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c");
  auto f = s.refusal(roster(m_lead + "  - {name: a, capsule: wroker-c, version: 1.0.0}\n"));
  check_code(f, "E-ROS-007", "no version of wroker-c is installed");
  CHECK(f.message().find("did you mean `worker-c`?") != std::string::npos);
  CHECK(f.fix().find("capsule: worker-c") != std::string::npos);
  auto far = s.refusal(roster(m_lead + "  - {name: a, capsule: zzz-unrelated, version: 1.0.0}\n"));
  CHECK(far.message().find("did you mean") == std::string::npos); // nothing close: no guess
}

TEST_CASE("E-ROS-007: project store first, then global", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.capsule("worker-c", "description: global copy\n", true);
  s.capsule("worker-c", "description: project copy\n", false);
  auto a = s.admit(roster(m_lead + m_a));
  CHECK(a.members[1].capsule.stored.scope == mur::StoreScope::project);
  CHECK(a.members[1].capsule.manifest.description == "project copy");
  // A damaged project copy is refused rather than silently skipped for the global one.
  std::ofstream(fs::path(s.roots.project) / "worker-c/1.0.0/murmur.yaml", std::ios::app) << "\n";
  check_code(s.refusal(roster(m_lead + m_a)), "E-ROS-007", "project store");
}

TEST_CASE("E-ROS-005: the lowest-index callee without consent", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.capsule("quiet-c", "network: {authentication: {scheme: bearer}}\n");
  s.callee("worker-c");
  auto f = s.refusal(roster(m_lead + m_a + "  - {name: q2, capsule: quiet-c, version: 1.0.0}\n" +
                              "  - {name: q1, capsule: quiet-c, version: 1.0.0}\n",
                            "  - {from: lead, to: [q1, a]}\n  - {from: a, to: [q2]}\n"));
  check_code(f, "E-ROS-005", "member 'q2' (quiet-c@1.0.0) is called by a but");
}

TEST_CASE("every model transport is admitted: script, http and process", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.capsule("model-c", "inference: {transport: http, endpoint: 'http://127.0.0.1:11434/v1', model: llama3.2}\n"
                       "exports: {peer_tasks: {accept: true}}\nnetwork: {authentication: {scheme: bearer}}\n");
  s.capsule("agent-c", "inference: {transport: process, command: [agent]}\n"
                       "exports: {peer_tasks: {accept: true}}\nnetwork: {authentication: {scheme: bearer}}\n");
  CHECK(s.admit(roster(m_lead + "  - {name: m, capsule: model-c, version: 1.0.0}\n  - {name: p, capsule: agent-c, version: 1.0.0}\n",
                       "  - {from: lead, to: [m, p]}\n"))
          .members.size() == 3);
}

TEST_CASE("E-ROS-006: any edge needs every member's door authenticated", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c");
  s.capsule("bystander-c", ""); // no calls, but a public door
  auto f = s.refusal(roster(m_lead + m_a + "  - {name: z, capsule: bystander-c, version: 1.0.0}\n",
                            "  - {from: lead, to: [a]}\n"));
  check_code(f, "E-ROS-006", "member 'z' (bystander-c@1.0.0) serves a public door");
}

TEST_CASE("the order between codes when two faults coexist", "[admission]") {
  Stores s; // empty stores: every member would also be E-ROS-007
  // duplicate name (2) beats missing entry (3)
  CHECK(s.refusal(roster(m_a + m_a)).code() == "E-ROS-003");
  // missing entry (3) beats unknown rule member (4)
  CHECK(s.refusal(roster(m_a, "  - {from: a, to: [ghost]}\n")).code() == "E-ROS-002");
  // unknown member (4) beats calling the entry (5), even in a later rule
  CHECK(s.refusal(roster(m_lead + m_a, "  - {from: a, to: [lead]}\n  - {from: lead, to: [ghost]}\n")).code() == "E-ROS-004");
  // calling the entry (5) beats not installed (6)
  CHECK(s.refusal(roster(m_lead + m_a, "  - {from: a, to: [lead]}\n")).code() == "E-ROS-008");
  // not installed (6) beats consent (7) and authentication (8)
  s.capsule("lead-c", "");
  CHECK(s.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n")).code() == "E-ROS-007");
  // consent (7) beats authentication (8): worker-c neither consents nor authenticates
  s.capsule("worker-c", "");
  CHECK(s.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n")).code() == "E-ROS-005");
  // within E-ROS-007, members go in roster order
  auto f = s.refusal(roster(m_lead + "  - {name: x, capsule: nope-x, version: 1.0.0}\n" +
                            "  - {name: y, capsule: nope-y, version: 1.0.0}\n"));
  CHECK(f.message().find("member 'x'") != std::string::npos);
}

TEST_CASE("W-ROS-001: more callers than tasks held at once, with the suggested fix", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c", "{task_acceptance: single, after_task: sleep}");
  s.callee("hub-c", "{task_acceptance: queue, queue_depth: 1, after_task: sleep}");
  const std::string members = m_lead + m_a + m_b + "  - {name: c, capsule: worker-c, version: 1.0.0}\n" +
                              "  - {name: hub, capsule: hub-c, version: 1.0.0}\n";
  // a is single (holds 1) and has 2 callers; hub holds 2 and has 3 callers.
  auto adm = s.admit(roster(members, "  - {from: lead, to: [a, b, c, hub]}\n  - {from: b, to: [a, hub]}\n"
                                     "  - {from: c, to: [hub]}\n"));
  std::vector<mur::Warning> ros;
  for (const auto& w : adm.warnings)
    if (w.code == "W-ROS-001") ros.push_back(w);
  REQUIRE(ros.size() == 2);
  CHECK(ros[0].message.find("member 'a' (worker-c@1.0.0) may be called by 2 members (lead, b) but holds 1") != std::string::npos);
  CHECK(ros[0].fix.find("lifecycle.task_acceptance: queue and lifecycle.queue_depth: 1") != std::string::npos);
  CHECK(ros[1].message.find("member 'hub'") != std::string::npos);
  CHECK(ros[1].fix.find("set lifecycle.queue_depth: 2") != std::string::npos);
  CHECK(ros[1].fix.find("task_acceptance") == std::string::npos);
}

TEST_CASE("W-RUN-008 and W-ROS-002: egress and script mismatches are warned about", "[admission]") {
  Stores s;
  s.capsule("lead-c", "inference: {turns: [{call: {member: ghost, task: x}}, {reply: done}]}\n"
                      "network: {authentication: {scheme: bearer}}\n");
  s.callee("worker-c");
  auto a = s.admit(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n"));
  REQUIRE(a.warnings.size() == 2);
  CHECK(a.warnings[0].code == "W-RUN-008");
  CHECK(a.warnings[0].message.find("does not list localhost") != std::string::npos);
  CHECK(a.warnings[1].code == "W-ROS-002");
  CHECK(a.warnings[1].message.find("its script calls ghost") != std::string::npos);
}

TEST_CASE("W-ROS-003: a callee whose lifecycle ends it after one task is warned about, with a Fix", "[admission]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c", "{task_acceptance: queue, after_task: exit}");
  s.callee("stay-c");
  auto a = s.admit(roster(m_lead + m_a + "  - {name: b, capsule: stay-c, version: 1.0.0}\n", "  - {from: lead, to: [a, b]}\n"));
  std::vector<mur::Warning> ros;
  for (const auto& w : a.warnings)
    if (w.code == "W-ROS-003") ros.push_back(w);
  REQUIRE(ros.size() == 1); // b stays after its tasks: no warning for it
  CHECK(ros[0].message.find("member 'a' (worker-c@1.0.0) may be called by lead but its lifecycle.after_task is exit") !=
        std::string::npos);
  CHECK(ros[0].message.find("reaches a member that has ended") != std::string::npos);
  CHECK(ros[0].fix == "in worker-c's murmur.yaml set lifecycle.after_task: sleep, so it stays for the formation's later calls");
  // A member nobody calls may end after its task without a warning (the entry does, by default).
  auto none = s.admit(roster(m_lead + m_a));
  for (const auto& w : none.warnings) CHECK(w.code != "W-ROS-003");
}

// capabilities.spawn.allow (docs/spec/formation.md §Admission order): checks 9 and 10.
namespace {
const std::string auth_door = "network: {authentication: {scheme: bearer}}\n";
const std::string egress = "capabilities: {network: {allow: [localhost]}, spawn: {allow: [";
} // namespace

TEST_CASE("spawn.allow: an installed entry is admitted beside network.authentication, bound to its bytes", "[admission][spawn]") {
  Stores s;
  s.capsule("lead-c", egress + "helper@1.0.0, tool@2.0.0]}}\n" + auth_door);
  s.callee("worker-c");
  s.capsule("helper", "", /*global=*/false);             // project store
  s.capsule("tool", "", /*global=*/true, "2.0.0");         // global store
  s.capsule("helper", "description: global copy\n", true); // shadowed by the project's copy
  auto a = s.admit(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n"));
  REQUIRE(a.members[0].spawnable.size() == 2);
  CHECK(a.members[0].spawnable[0].manifest.name == "helper");
  CHECK(a.members[0].spawnable[0].stored.scope == mur::StoreScope::project);
  CHECK(a.members[0].spawnable[0].stored.sha256.size() == 64);
  CHECK(a.members[0].spawnable[1].manifest.version == "2.0.0");
  CHECK(a.members[0].spawnable[1].stored.scope == mur::StoreScope::global);
  CHECK(a.members[1].spawnable.empty());
  // Delegation runs: a member that declares it is warned of nothing (W-RUN-009 is gone).
  CHECK(a.warnings.empty());
}

TEST_CASE("E-ROS-009: a spawn.allow entry that is not installed, or whose stored copy cannot be trusted", "[admission][spawn]") {
  Stores s;
  s.capsule("lead-c", egress + "helper@1.0.0, helper-two@2.0.0]}}\n" + auth_door);
  s.callee("worker-c");
  s.capsule("helper", "");
  s.capsule("helper-two", ""); // 1.0.0 only: 2.0.0 is not installed
  auto f = s.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n"));
  check_code(f, "E-ROS-009", "member 'lead' (lead-c@1.0.0): capabilities.spawn.allow[1]: the capsule helper-two@2.0.0");
  CHECK(f.message().find("not installed at this version") != std::string::npos);
  CHECK(f.fix().find("mur install") != std::string::npos);

  Stores t; // a stored copy whose bytes changed since install is refused, not skipped
  t.capsule("lead-c", egress + "helper@1.0.0]}}\n" + auth_door);
  t.capsule("helper", "");
  std::ofstream(fs::path(t.roots.global) / "helper/1.0.0/murmur.yaml", std::ios::app) << "# changed\n";
  auto g = t.refusal(roster(m_lead));
  check_code(g, "E-ROS-009", "capabilities.spawn.allow[0]: the capsule helper@1.0.0");
  CHECK(g.message().find("cannot be used") != std::string::npos);
  CHECK(g.fix().find("mur install <capsule folder> -g --force") != std::string::npos);
}

TEST_CASE("E-ROS-010: a spawn.allow capsule named like a member its declarer may call", "[admission][spawn]") {
  Stores s;
  s.capsule("lead-c", egress + "a@1.0.0]}}\n" + auth_door);
  s.callee("worker-c");
  s.capsule("a", "");
  auto f = s.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n"));
  check_code(f, "E-ROS-010",
             "member 'lead' (lead-c@1.0.0): capabilities.spawn.allow[0]: the capsule a@1.0.0 it may delegate to has "
             "the name of member 'a', which lead may call; a delegation and a call would both answer as {{answer.a}}");
  CHECK(f.fix().find("rename member 'a'") != std::string::npos);
  CHECK(f.fix().find("a@1.0.0") != std::string::npos);
  // The same name is no clash when the declarer cannot call that member.
  auto ok = s.admit(roster(m_lead + m_a));
  CHECK(ok.members[0].spawnable.size() == 1);
  // Under reachability: all the implicit edges count: a may call b, so b may not be a child's name.
  Stores t;
  t.caller("lead-c");
  t.capsule("worker-c", egress + "b@1.0.0]}}\n" + auth_door + "exports: {peer_tasks: {accept: true}}\n");
  t.capsule("b", "");
  check_code(t.refusal(roster(m_lead + m_a + m_b, "") + "reachability: all\n"), "E-ROS-010",
             "member 'a' (worker-c@1.0.0): capabilities.spawn.allow[0]: the capsule b@1.0.0 it may delegate to has the "
             "name of member 'b', which a may call");
}

TEST_CASE("spawn.allow checks come after check 8, and 9 before 10", "[admission][spawn]") {
  Stores s;
  s.capsule("lead-c", egress + "a@1.0.0]}}\n"); // public door, spawn entry not installed, and a clash
  s.callee("worker-c");
  CHECK(s.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n")).code() == "E-ROS-006");
  Stores t;
  t.capsule("lead-c", egress + "a@1.0.0]}}\n" + auth_door);
  t.callee("worker-c");
  CHECK(t.refusal(roster(m_lead + m_a, "  - {from: lead, to: [a]}\n")).code() == "E-ROS-009");
}

TEST_CASE("W-ROS-004 and W-ROS-005: calls and delegation that can go round are warned about", "[admission][chain]") {
  Stores s;
  s.capsule("lead-c", egress + "ping@1.0.0]}}\n" + auth_door);
  s.capsule("ping", egress + "pong@1.0.0]}}\n");
  s.capsule("pong", egress + "ping@1.0.0]}}\n");
  s.callee("worker-c");
  auto codes = [](const mur::Admission& a) {
    std::vector<std::string> out;
    for (const auto& w : a.warnings) out.push_back(w.code);
    return out;
  };
  auto a = s.admit(roster(m_lead + m_a + m_b, "  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n  - {from: b, to: [a]}\n"));
  REQUIRE(codes(a) == std::vector<std::string>{"W-ROS-004", "W-ROS-005"});
  CHECK(a.warnings[0].message.find("a \u2192 b \u2192 a") != std::string::npos);
  CHECK(a.warnings[1].message.find("member 'lead' (lead-c@1.0.0)") != std::string::npos);
  CHECK(a.warnings[1].message.find("ping@1.0.0 \u2192 pong@1.0.0 \u2192 ping@1.0.0") != std::string::npos);
  // Cycles allowed: no W-ROS-004 (the roster chose them; max_depth bounds them).
  auto allowed = s.admit(roster(m_lead + m_a + m_b, "  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n  - {from: b, to: [a]}\n") +
                         "allow_cycles: true\n");
  CHECK(codes(allowed) == std::vector<std::string>{"W-ROS-005"});
}

TEST_CASE("E-ROS-011: more members than limits.max_live", "[admission][limits]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c");
  check_code(s.refusal(roster(m_lead + m_a + m_b, "  - {from: lead, to: [a, b]}\n") + "limits: {max_live: 2}\n"),
             "E-ROS-011", "limits.max_live: 2 live members and delegated children at once is fewer than the roster's 3 members");
  CHECK(s.refusal(roster(m_lead + m_a + m_b, "  - {from: lead, to: [a, b]}\n") + "limits: {max_live: 2}\n").fix().find(
          "at least 3") != std::string::npos);
  // exactly as many members as the ceiling: admitted (no room for children, which is the roster's choice)
  CHECK(s.admit(roster(m_lead + m_a + m_b, "  - {from: lead, to: [a, b]}\n") + "limits: {max_live: 3}\n").members.size() == 3);
}

TEST_CASE("W-ROS-006: a member may delegate but limits.max_live leaves no slot", "[admission][limits]") {
  Stores s;
  s.capsule("lead-c", egress + "helper@1.0.0]}}\n" + auth_door);
  s.capsule("helper", "");
  auto full = s.admit(roster(m_lead) + "limits: {max_live: 1}\n");
  bool warned = false;
  for (const auto& w : full.warnings)
    if (w.code == "W-ROS-006") {
      warned = true;
      CHECK(w.message.find("lead may delegate") != std::string::npos);
    }
  CHECK(warned);
  for (const auto& w : s.admit(roster(m_lead) + "limits: {max_live: 2}\n").warnings) CHECK(w.code != "W-ROS-006");
}

TEST_CASE("12: a member's host must be declared, and each host's key file must hold a certificate", "[admission][hosts]") {
  Stores s;
  s.capsule("lead-c", "");
  s.capsule("worker-c", "");
  fs::create_directories(s.root / "project");
  const std::string on_gpu = "  - {name: a, capsule: worker-c, version: 1.0.0, host: gpu1}\n";
  check_code(s.refusal(roster(m_lead + on_gpu)), "E-HST-001", "members[1].host: 'gpu1' is not a host of this roster (it declares none)");
  const std::string hosts = "hosts:\n  gpu2: {address: '10.0.0.2:7420', key: gpu2.pem}\n";
  check_code(s.refusal(roster(m_lead + on_gpu) + hosts), "E-HST-001", "(it declares gpu2)");
  const std::string gpu1 = "hosts:\n  gpu1: {address: '10.0.0.2:7420', key: gpu1.pem}\n";
  check_code(s.refusal(roster(m_lead + on_gpu) + gpu1), "E-HST-008", "hosts.gpu1.key: ");
  std::ofstream(s.root / "project" / "gpu1.pem") << "not a certificate\n";
  check_code(s.refusal(roster(m_lead + on_gpu) + gpu1), "E-HST-008", "holds no certificate");
  std::ofstream(s.root / "project" / "gpu1.pem") << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  const mur::Admission a = s.admit(roster(m_lead + on_gpu) + gpu1);
  CHECK(a.members[1].declared.host == "gpu1");
  CHECK(mur::host_key_path(a.roster, a.roster.hosts[0]) == (s.root / "project" / "gpu1.pem").string());
}

TEST_CASE("12: the entry runs on the launcher's machine, and a member on a host calls only members on hosts", "[admission][hosts]") {
  Stores s;
  s.caller("lead-c");
  s.callee("worker-c");
  fs::create_directories(s.root / "project");
  std::ofstream(s.root / "project" / "gpu1.pem") << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  const std::string gpu1 = "hosts:\n  gpu1: {address: '10.0.0.2:7420', key: gpu1.pem}\n";
  const std::string lead_on_gpu = "  - {name: lead, capsule: lead-c, version: 1.0.0, entry: true, host: gpu1}\n";
  check_code(s.refusal(roster(lead_on_gpu + m_a) + gpu1), "E-HST-010",
             "members[0].host: the entry member 'lead' runs on the launcher's machine");
  // a (on gpu1) may call b (here): b's door listens on this machine's loopback only.
  const std::string a_on_gpu = "  - {name: a, capsule: worker-c, version: 1.0.0, host: gpu1}\n";
  const std::string reach = "  - {from: lead, to: [a]}\n  - {from: a, to: [b]}\n";
  check_code(s.refusal(roster(m_lead + a_on_gpu + m_b, reach) + gpu1), "E-HST-012",
             "member 'a' runs on host 'gpu1' and may call 'b', which runs on the launcher's machine");
  // b on a host too: admitted; a local caller of a member on a host is fine.
  const std::string b_on_gpu = "  - {name: b, capsule: worker-c, version: 1.0.0, host: gpu1}\n";
  const mur::Admission ok = s.admit(roster(m_lead + a_on_gpu + b_on_gpu, reach) + gpu1);
  CHECK(ok.members[1].callees == std::vector<std::string>{"b"});
}
