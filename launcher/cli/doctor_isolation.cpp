// doctor_isolation.cpp — see doctor_isolation.hpp.
#include "launcher/cli/doctor_isolation.hpp"

#include "member/program_env.hpp"
#include "os/syscall_filter.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace mur {
namespace {

// "memory_mib 256, pids 64" for the limits a capsule sets ("" when none).
std::string limits_text(const Manifest& m) {
  std::string out;
  auto add = [&](const char* key, const std::optional<std::int64_t>& v) {
    if (v) out += (out.empty() ? "" : ", ") + std::string(key) + " " + std::to_string(*v);
  };
  add("memory_mib", m.resources.memory_mib);
  add("pids", m.resources.pids);
  add("cpu_percent", m.resources.cpu_percent);
  add("open_files", m.resources.open_files);
  return out;
}

struct Layer {
  const char* key;
  bool present;
  std::string text;
};

std::vector<Layer> layers(const IsolationProbe& p) {
  const std::string filter = std::to_string(refused_syscalls().size()) + " kinds of system call refused";
  return {
    {"pid_namespace", p.pid_namespace && p.private_proc,
     p.pid_namespace ? std::string("a pid and mount namespace of their own") +
                         (p.user_namespace ? " (in a user namespace)" : "") +
                         (p.private_proc ? ", with their own /proc: no other process in sight, and nothing they leave "
                                           "behind outlives them"
                                         : ", but /proc could not be their own: they see other processes")
                     : "no pid namespace (" + (p.why.empty() ? std::string("unknown") : p.why) +
                         "): they see other processes, and what they leave behind can outlive them"},
    {"landlock", p.landlock > 0,
     p.landlock > 0 ? "Landlock ABI " + std::to_string(p.landlock) +
                        ": other members' directories, the store and other formations are out of reach"
                    : std::string("no Landlock: they can read every member's directory (W-ISO-001)")},
    {"capabilities", p.capabilities_dropped,
     p.capabilities_dropped ? "no capabilities, even as root" : "capabilities could not be dropped"},
    {"seccomp", p.seccomp, p.seccomp ? "seccomp: " + filter : std::string("no seccomp filter")},
    {"resource_limits", !p.resource_groups.empty(),
     !p.resource_groups.empty()
       ? "resource limits through " + p.resource_groups + ": the member runtime and its processes together" +
           (p.resource_groups_why.empty() ? std::string() : "; not held: " + p.resource_groups_why)
       : "no control groups can be made here (" + p.resource_groups_why +
           "): of capabilities.limits, only open_files, and memory_mib per program (RLIMIT_AS), hold"},
    {"member_runtime", p.landlock > 0 && p.capabilities_dropped && p.seccomp,
     p.landlock > 0 && p.capabilities_dropped && p.seccomp
       ? std::string("the member runtimes themselves too: each reaches its own directory only (Landlock), holds no "
                     "capability and is behind the same filter; their programs start through a starter that holds "
                     "them to their member's seal")
       : std::string("the member runtimes themselves are not sealed here (W-ISO-004)")},
    {"network", p.network,
     p.network ? std::string("a network of their own: they reach hosts only through the member's egress proxy, as "
                             "capabilities.network.allow grants (HTTP_PROXY, HTTPS_PROXY; CONNECT for TLS)")
               : std::string("no network namespace: their connections are not confined (W-ISO-003)")},
  };
}

} // namespace

void print_isolation(const IsolationProbe& probe, const DoctorCapsules& capsules, std::ostream& out) {
  out << "Isolation (what each member's agent program and tool servers get on this machine)\n";
  if (!probe.ran) out << "  \xE2\x9C\x97  the probe did not run: " << probe.why << "\n";
  for (const Layer& l : layers(probe))
    out << "  " << (l.present ? "\xE2\x9C\x93" : "\xE2\x9C\x97") << "  " << l.text << "\n";
  for (const auto& [who, m] : capsules) {
    if (capsule_has_programs(*m))
      out << "  " << who << ": programs get " << (m->real_home ? "the real HOME (capabilities.home: real)" : "a private HOME")
          << "\n";
    const std::string limits = limits_text(*m);
    if (!limits.empty()) out << "  " << who << ": limits " << limits << "\n";
  }
}

nlohmann::json isolation_json(const IsolationProbe& probe, const DoctorCapsules& capsules) {
  nlohmann::json j{{"probe_ran", probe.ran}};
  if (!probe.why.empty()) j["why"] = probe.why;
  for (const Layer& l : layers(probe)) j[l.key] = {{"present", l.present}, {"text", l.text}};
  j["landlock"]["abi"] = probe.landlock;
  j["pid_namespace"]["user_namespace"] = probe.user_namespace;
  j["seccomp"]["refused"] = refused_syscalls();
  nlohmann::json homes = nlohmann::json::object();
  for (const auto& [who, m] : capsules)
    if (capsule_has_programs(*m)) homes[who] = m->real_home ? "real" : "private";
  j["program_home"] = homes;
  j["resource_limits"]["groups"] = probe.resource_groups;
  nlohmann::json limits = nlohmann::json::object();
  for (const auto& [who, m] : capsules)
    if (!limits_text(*m).empty()) limits[who] = limits_text(*m);
  j["capsule_limits"] = limits;
  return j;
}

} // namespace mur
