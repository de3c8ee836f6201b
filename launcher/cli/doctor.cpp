#include "launcher/cli/doctor.hpp"

#include "capsule/member_wiring.hpp"

#include "capsule/manifest.hpp"
#include "launcher/admission/admission.hpp"
#include "launcher/admission/cycle_warnings.hpp"
#include "launcher/admission/inference_warnings.hpp"
#include "launcher/run/host_reach.hpp"
#include "launcher/admission/template_check.hpp"
#include "launcher/base/project_path.hpp"
#include "launcher/cli/doctor_isolation.hpp"
#include "launcher/cli/doctor_probes.hpp"
#include "member/tools_check.hpp"
#include "messages/vocabulary/comma_list.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/terminal_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

namespace mur {
namespace {

using json = nlohmann::json;

constexpr int admission_checks = 12;

// Which admission check (1-based, in order) a refusal code belongs to.
int check_of(const std::string& code) {
  if (code == "E-ROS-012") return 1;
  if (code.rfind("E-INS-", 0) == 0 || code.rfind("E-MAN-", 0) == 0) return 6; // a member's path folder, installed in check 6
  static const char* order[] = {"E-ROS-001", "E-ROS-003", "E-ROS-002", "E-ROS-004",
                                "E-ROS-008", "E-ROS-007", "E-ROS-005", "E-ROS-006",
                                "E-ROS-009", "E-ROS-010", "E-ROS-011", "E-HST-001"};
  for (int i = 0; i < admission_checks; ++i)
    if (code == order[i]) return i + 1;
  return 1;
}

std::string checks(int n) { return std::to_string(n) + (n == 1 ? " check" : " checks"); }

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

json failure_json(const Failure& f) { return {{"code", f.code()}, {"message", f.message()}, {"fix", f.fix()}}; }

// What doctor found, printed as text or as one JSON object.
struct Report {
  std::string dir;
  bool has_roster = false, has_manifest = false;
  std::optional<Admission> admission;
  std::optional<Manifest> capsule;
  std::vector<Warning> warnings;
  std::optional<Failure> refusal;
  bool refused_in_roster = false;
  int passed = 0;
  // What each capsule's tool servers listed when doctor started them: member (or capsule) → names.
  std::vector<std::pair<std::string, std::vector<std::string>>> tools;
  IsolationProbe isolation; // what sealing this machine gives programs
  std::vector<std::string> hosts; // a line for each host reached (or not)
  bool probe = true;              // --no-probe: no model server asked, no program resolved
  std::vector<std::string> probes; // a line for each member probed that passed
};

// The model servers and programs of the report's capsules (members on other hosts excepted),
// probed together; one check each that passed; the first failure refuses.
void probe(Report& r) {
  std::vector<ProbeTarget> targets;
  if (r.admission) {
    for (const auto& am : r.admission->members)
      if (am.declared.host.empty())
        targets.push_back({"member '" + am.declared.name + "' (" + am.declared.capsule + "@" + am.declared.version + ")",
                           &am.capsule.manifest});
  } else if (r.capsule) {
    targets.push_back({"capsule " + r.capsule->name + "@" + r.capsule->version, &*r.capsule});
  }
  ProbeResult result = probe_members(targets);
  r.passed += static_cast<int>(result.lines.size());
  r.probes = std::move(result.lines);
  if (result.failure) throw *result.failure;
}

// Each host a member runs on, reached with the capsules of its members (one check each), then
// whether its members' capsules are installed there. Refuses with the first failure.
void check_hosts(Report& r) {
  mur::check_hosts(*r.admission, [&r](const std::string& line, bool reached) {
    r.hosts.push_back(line);
    if (reached) ++r.passed;
  });
}

// Each capsule of the report, named as its lines name it.
DoctorCapsules capsules_of(const Report& r) {
  DoctorCapsules out;
  if (r.admission)
    for (const auto& am : r.admission->members) out.emplace_back("member " + am.declared.name, &am.capsule.manifest);
  if (r.capsule && !r.has_roster) out.emplace_back("capsule " + r.capsule->name, &*r.capsule);
  return out;
}

// Starts the tool servers of `m` once and keeps what they list under `who` (one more check).
void list_tools(Report& r, const Manifest& m, const std::string& who) {
  if (m.tools.empty()) return;
  std::vector<std::string> names;
  for (const auto& t : list_capsule_tools(m, process_env_lookup())) names.push_back(t.name);
  r.tools.emplace_back(who, std::move(names));
  ++r.passed;
}

void print_members(const Admission& a, std::ostream& out) {
  std::size_t wn = 0, wc = 0;
  for (const auto& m : a.members) {
    wn = std::max(wn, m.declared.name.size());
    wc = std::max(wc, m.declared.capsule.size() + 1 + m.declared.version.size());
  }
  for (std::size_t i = 0; i < a.members.size(); ++i) {
    const auto& m = a.members[i];
    const auto& man = m.capsule.manifest;
    out << "  " << pad(m.declared.name, wn) << "  "
        << pad(m.declared.capsule + "@" + m.declared.version, wc) << "  "
        << (i == a.entry ? "entry  " : "       ")
        << (man.accepts_peer_tasks ? "serves peers   " : "refuses peers  ")
        << (man.authentication ? "authenticated door" : "public door")
        << (m.declared.path.empty() ? std::string() : "  from " + m.declared.path)
        << (m.declared.restart.max <= 0 ? std::string()
                                        : "  restarts: " + std::to_string(m.declared.restart.max) + " within " +
                                            std::to_string(m.declared.restart.within.count()) + " s")
        << "\n";
  }
  std::string edges;
  for (const auto& e : a.edges) edges += (edges.empty() ? "" : ", ") + e.from + " \xE2\x86\x92 " + e.to;
  if (a.roster.reach_all) out << "  reachability (all): " << (edges.empty() ? "none" : edges) << "\n";
  else out << "  reachability: " << (edges.empty() ? "none" : edges) << "\n";
  std::string spawns; // who may delegate to which sub-capsules (not members: children)
  for (const auto& m : a.members)
    for (const auto& s : m.capsule.manifest.spawn_allow)
      spawns += (spawns.empty() ? "" : ", ") + m.declared.name + " \xE2\x86\x92 " + s.text();
  if (!spawns.empty()) out << "  delegation: " << spawns << "\n";
}

Report examine(const ProjectPath& where, bool probing) {
  Report r;
  r.probe = probing;
  r.dir = where.dir;
  r.has_roster = where.has_roster;
  r.has_manifest = where.has_manifest;
  r.isolation = probe_isolation();
  if (r.has_roster) {
    try {
      Admission a = admit_roster_at(r.dir);
      r.passed += admission_checks;
      for (const auto& am : a.members)
        for (auto& w : inference_warnings(am.capsule.manifest, "member '" + am.declared.name + "' (" +
                                            am.declared.capsule + "@" + am.declared.version + ")",
                                          process_env_lookup()))
          a.warnings.push_back(std::move(w));
      r.warnings = a.warnings;
      r.admission = std::move(a);
      for (const auto& am : r.admission->members)
        check_templates(am.capsule.manifest, "member '" + am.declared.name + "' (" + am.declared.capsule + "@" +
                                               am.declared.version + ")");
      for (const auto& am : r.admission->members) list_tools(r, am.capsule.manifest, am.declared.name);
      check_hosts(r);
      if (r.probe) probe(r);
    } catch (const Failure& f) {
      if (!r.admission) r.passed += check_of(f.code()) - 1;
      r.refusal = f;
      r.refused_in_roster = true;
    }
  }
  if (r.has_manifest && !r.refusal) {
    try {
      Manifest m = load_manifest_dir(r.dir);
      r.capsule = m;
      check_templates(m, r.dir + "/murmur.yaml");
      // spawn.allow entries resolve from the stores `mur run --capsule` would use: the project's
      // (DIR's when it holds a roster, else the current directory's), then the global one.
      std::error_code no_cwd;
      const auto cwd = std::filesystem::current_path(no_cwd);
      const std::string project = r.has_roster ? r.dir : no_cwd ? std::string(".") : cwd.string();
      resolve_spawn_allow(m, StoreRoots::for_project(project), r.dir + "/murmur.yaml");
      ++r.passed;
      if (!r.has_roster) {
        if (auto w = spawn_cycle_warning(m, StoreRoots::for_project(project), "capsule " + m.name + "@" + m.version))
          r.warnings.push_back(std::move(*w));
        for (auto& w : inference_warnings(m, "capsule " + m.name + "@" + m.version, process_env_lookup()))
          r.warnings.push_back(std::move(w));
        list_tools(r, m, m.name);
        if (r.probe) probe(r);
      }
    } catch (const Failure& f) {
      r.refusal = f;
    }
  }
  return r;
}

void print_text(const Report& r, std::ostream& out) {
  if (r.has_roster) {
    if (!r.has_manifest) out << "No murmur.yaml in " << r.dir << ": checking its roster.yaml.\n\n";
    out << "Roster\n  file: " << r.dir << "/roster.yaml\n";
    if (r.admission) {
      for (const auto& p : r.admission->installed)
        if (const auto line = install_line(p); !line.empty()) out << "  " << line << "\n";
      print_members(*r.admission, out);
      for (const auto& w : r.admission->warnings) out << "  \xE2\x9A\xA0  " << w.code << ": " << w.message << "\n";
    }
    for (const auto& [who, names] : r.tools)
      out << "  tools of " << who << ": " << (names.empty() ? std::string("none listed") : comma_list(names)) << "\n";
    for (const auto& line : r.probes) out << "  probed " << line << "\n";
    if (!r.hosts.empty()) {
      out << "  hosts (this launcher's certificate: " << launcher_certificate() << ")\n";
      for (const auto& line : r.hosts) out << "    " << line << "\n";
    }
    if (r.refusal && r.refused_in_roster) out << "  \xE2\x9C\x97  " << r.refusal->code() << ": " << r.refusal->message() << "\n";
  }
  if (r.has_manifest && !r.refused_in_roster) {
    out << (r.has_roster ? "\n" : "") << "Capsule\n  file: " << r.dir << "/murmur.yaml\n";
    if (r.capsule) {
      const Manifest& m = *r.capsule;
      out << "  " << m.name << "@" << m.version << "  transport " << to_string(m.inference.transport)
          << "  " << to_string(m.lifecycle.task_acceptance) << "/" << to_string(m.lifecycle.after_task)
          << "  " << (m.accepts_peer_tasks ? "serves peers" : "refuses peers") << "  "
          << (m.authentication ? "authenticated door" : "public door") << "\n";
      if (!m.spawn_allow.empty()) {
        std::string spawns;
        for (const auto& s : m.spawn_allow) spawns += (spawns.empty() ? "" : ", ") + s.text();
        out << "  may delegate to: " << spawns << "\n";
      }
      if (!r.has_roster) {
        for (const auto& [who, names] : r.tools)
          out << "  tools: " << (names.empty() ? std::string("none listed") : comma_list(names)) << "\n";
        for (const auto& line : r.probes) out << "  probed " << line << "\n";
      }
    }
    if (!r.has_roster)
      for (const auto& w : r.warnings) out << "  \xE2\x9A\xA0  " << w.code << ": " << w.message << "\n";
    if (r.refusal) out << "  \xE2\x9C\x97  " << r.refusal->code() << ": " << r.refusal->message() << "\n";
  }
  out << "\n";
  print_isolation(r.isolation, capsules_of(r), out);
  out << "\n";
  if (r.refusal) {
    out << checks(r.passed) << " passed, 1 error found.\n\nFix: " << r.refusal->fix() << "\n";
    return;
  }
  if (r.warnings.empty()) {
    out << "All checks passed.\n";
    return;
  }
  out << checks(r.passed) << " passed, 0 errors found, " << r.warnings.size() << " warning(s).\n\n";
  for (const auto& w : r.warnings) out << "Fix: " << w.fix << "\n";
}

void print_json(const Report& r, std::ostream& out) {
  json j{{"ok", !r.refusal}, {"dir", r.dir}, {"checks_passed", r.passed}};
  if (r.admission) {
    const Admission& a = *r.admission;
    json members = json::array();
    for (std::size_t i = 0; i < a.members.size(); ++i) {
      const auto& m = a.members[i];
      members.push_back({{"name", m.declared.name}, {"capsule", m.declared.capsule}, {"version", m.declared.version},
                         {"entry", i == a.entry}, {"serves_peers", m.capsule.manifest.accepts_peer_tasks},
                         {"authenticated", m.capsule.manifest.authentication.has_value()}});
      json spawn = json::array();
      for (const auto& s : m.capsule.manifest.spawn_allow) spawn.push_back(s.text());
      members.back()["spawn_allow"] = std::move(spawn);
      if (!m.declared.path.empty()) members.back()["path"] = m.declared.path;
      members.back()["restart"] = m.declared.restart.max <= 0
                                    ? json(nullptr)
                                    : json{{"max", m.declared.restart.max}, {"within_secs", m.declared.restart.within.count()}};
    }
    json edges = json::array();
    for (const auto& e : a.edges) edges.push_back({{"from", e.from}, {"to", e.to}});
    if (!r.hosts.empty()) j["hosts"] = r.hosts;
    j["roster"] = {{"file", r.dir + "/roster.yaml"}, {"members", members}, {"reachability", edges},
                   {"reach_all", a.roster.reach_all}};
    json installed = json::array();
    for (const auto& p : a.installed)
      installed.push_back({{"member", p.member}, {"path", p.path}, {"capsule", p.outcome.capsule.name},
                           {"version", p.outcome.capsule.version}, {"sha256", p.outcome.capsule.sha256},
                           {"kind", p.outcome.kind == InstallOutcome::Kind::unchanged  ? "unchanged"
                                    : p.outcome.kind == InstallOutcome::Kind::replaced ? "changed"
                                                                                        : "new"}});
    j["installed"] = installed;
  }
  if (r.capsule)
    j["capsule"] = {{"file", r.dir + "/murmur.yaml"}, {"name", r.capsule->name}, {"version", r.capsule->version},
                    {"transport", to_string(r.capsule->inference.transport)}};
  json tools = json::object();
  for (const auto& [who, names] : r.tools) tools[who] = names;
  j["tools"] = tools;
  json warnings = json::array();
  for (const auto& w : r.warnings) warnings.push_back({{"code", w.code}, {"message", w.message}, {"fix", w.fix}});
  j["warnings"] = warnings;
  j["probed"] = r.probes;
  if (r.refusal) j["error"] = failure_json(*r.refusal);
  j["isolation"] = isolation_json(r.isolation, capsules_of(r));
  out << j.dump() << "\n";
}

} // namespace

int run_doctor(const std::string& dir_arg, std::ostream& out, bool as_json, bool probing) {
  std::optional<ProjectPath> where;
  try {
    where = doctor_path(dir_arg);
  } catch (const Failure& f) {
    if (as_json) {
      out << json{{"ok", false}, {"checks_passed", 0}, {"warnings", json::array()}, {"error", failure_json(f)}}.dump() << "\n";
    } else {
      out << terminal_safe("\xE2\x9C\x97  " + f.code() + ": " + f.message() + "\n\n" +
                           "0 checks passed, 1 error found.\n\nFix: " + f.fix() + "\n");
    }
    return exit_refused;
  }
  const Report r = examine(*where, probing);
  if (as_json) {
    print_json(r, out);
  } else {
    // Tool names and descriptions come from the capsule's servers: what reaches a terminal is
    // escaped (messages/vocabulary/terminal_text.hpp).
    std::ostringstream text;
    print_text(r, text);
    out << terminal_safe(text.str());
  }
  return r.refusal ? exit_refused : exit_ok;
}

} // namespace mur
