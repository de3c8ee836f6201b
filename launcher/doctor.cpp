#include "launcher/doctor.hpp"

#include "capsule/member_wiring.hpp"

#include "launcher/admission.hpp"
#include "launcher/inference_warnings.hpp"
#include "capsule/manifest.hpp"
#include "messages/failure.hpp"

#include <algorithm>
#include <sys/stat.h>

namespace mur {
namespace {

constexpr int admission_checks = 8;

// Which admission check (1-based, in order) a refusal code belongs to.
int check_of(const std::string& code) {
  static const char* order[] = {"E-ROS-001", "E-ROS-003", "E-ROS-002", "E-ROS-004",
                                "E-ROS-008", "E-ROS-007", "E-ROS-005", "E-ROS-006"};
  for (int i = 0; i < admission_checks; ++i)
    if (code == order[i]) return i + 1;
  return 1;
}

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string checks(int n) { return std::to_string(n) + (n == 1 ? " check" : " checks"); }

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
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
        << (man.authentication ? "authenticated door" : "public door") << "\n";
  }
  std::string edges;
  for (const auto& e : a.edges) edges += (edges.empty() ? "" : ", ") + e.from + " \xE2\x86\x92 " + e.to;
  if (a.roster.reach_all) out << "  reachability (all): " << (edges.empty() ? "none" : edges) << "\n";
  else out << "  reachability: " << (edges.empty() ? "none" : edges) << "\n";
}

} // namespace

int run_doctor(const std::string& dir_arg, std::ostream& out) {
  std::string dir = dir_arg.empty() ? "." : dir_arg;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const bool has_roster = is_file(dir + "/roster.yaml");
  const bool has_manifest = is_file(dir + "/murmur.yaml");

  if (!has_roster && !has_manifest) {
    Failure f("E-ROS-001", dir + " holds neither roster.yaml nor murmur.yaml: nothing to check",
              "run mur doctor in a formation's project directory, or pass it: mur doctor DIR");
    out << "\xE2\x9C\x97  " << f.code() << ": " << f.message() << "\n\n"
        << "0 checks passed, 1 error found.\n\nFix: " << f.fix() << "\n";
    return exit_refused;
  }

  int passed = 0;
  std::vector<Warning> warnings;
  std::optional<Failure> refusal;

  if (has_roster) {
    if (!has_manifest) out << "No murmur.yaml in " << dir << ": checking its roster.yaml.\n\n";
    out << "Roster\n  file: " << dir << "/roster.yaml\n";
    try {
      Admission a = admit_roster_at(dir);
      for (const auto& am : a.members)
        for (auto& w : inference_warnings(am.capsule.manifest, "member '" + am.declared.name + "' (" +
                                            am.declared.capsule + "@" + am.declared.version + ")",
                                          process_env_lookup()))
          a.warnings.push_back(std::move(w));
      print_members(a, out);
      for (const auto& w : a.warnings) out << "  \xE2\x9A\xA0  " << w.code << ": " << w.message << "\n";
      warnings = a.warnings;
      passed += admission_checks;
    } catch (const Failure& f) {
      out << "  \xE2\x9C\x97  " << f.code() << ": " << f.message() << "\n";
      passed += check_of(f.code()) - 1;
      refusal = f;
    }
  }

  if (has_manifest && !refusal) {
    out << (has_roster ? "\n" : "") << "Capsule\n  file: " << dir << "/murmur.yaml\n";
    try {
      Manifest m = load_manifest_dir(dir);
      out << "  " << m.name << "@" << m.version << "  transport " << to_string(m.inference.transport)
          << "  " << to_string(m.lifecycle.task_acceptance) << "/" << to_string(m.lifecycle.after_task)
          << "  " << (m.accepts_peer_tasks ? "serves peers" : "refuses peers") << "  "
          << (m.authentication ? "authenticated door" : "public door") << "\n";
      ++passed;
      if (!has_roster)
        for (auto& w : inference_warnings(m, "capsule " + m.name + "@" + m.version, process_env_lookup())) {
          out << "  \xE2\x9A\xA0  " << w.code << ": " << w.message << "\n";
          warnings.push_back(std::move(w));
        }
    } catch (const Failure& f) {
      out << "  \xE2\x9C\x97  " << f.code() << ": " << f.message() << "\n";
      refusal = f;
    }
  }

  out << "\n";
  if (refusal) {
    out << checks(passed) << " passed, 1 error found.\n\nFix: " << refusal->fix() << "\n";
    return exit_refused;
  }
  if (warnings.empty()) {
    out << "All checks passed.\n";
    return exit_ok;
  }
  out << checks(passed) << " passed, 0 errors found, " << warnings.size() << " warning(s).\n\n";
  for (const auto& w : warnings) out << "Fix: " << w.fix << "\n";
  return exit_ok;
}

} // namespace mur
