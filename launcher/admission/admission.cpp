#include "launcher/admission/admission.hpp"

#include "os/tls_identity.hpp"
#include "launcher/admission/cycle_warnings.hpp"
#include "launcher/admission/path_members.hpp"
#include "launcher/admission/source_drift.hpp"

#include "capsule/member_wiring.hpp"

#include "messages/vocabulary/comma_list.hpp"
#include "messages/vocabulary/failure.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace mur {
namespace {

std::string ref(const RosterMember& m) {
  return "member '" + m.name + "' (" + m.capsule + "@" + m.version + ")";
}

[[noreturn]] void refuse(const Roster& r, const std::string& code, const std::string& what,
                         const std::string& fix) {
  throw Failure(code, r.file + ": " + what, fix);
}

} // namespace

std::vector<ResolvedCapsule> resolve_spawn_allow(const Manifest& m, const StoreRoots& stores,
                                                 const std::string& who) {
  std::vector<ResolvedCapsule> out;
  for (std::size_t i = 0; i < m.spawn_allow.size(); ++i) {
    const CapsuleRef& c = m.spawn_allow[i];
    auto resolved = resolve_capsule(stores, c.name, c.version);
    if (auto* miss = std::get_if<ResolveMiss>(&resolved))
      throw Failure("E-ROS-009",
                    who + ": capabilities.spawn.allow[" + std::to_string(i) + "]: the capsule " + c.text() +
                      " it may delegate to: " + miss->why,
                    miss->fix);
    out.push_back(std::move(std::get<ResolvedCapsule>(resolved)));
  }
  return out;
}

namespace {

using NameIndex = std::map<std::string, std::size_t>; // member name → roster index
using EdgeSet = std::set<std::pair<std::size_t, std::size_t>>; // (from, to) roster indices, ordered

// 2. Unique names.
NameIndex unique_names(const Roster& roster) {
  const auto& ms = roster.members;
  NameIndex index;
  for (std::size_t i = 0; i < ms.size(); ++i)
    if (!index.emplace(ms[i].name, i).second)
      refuse(roster, "E-ROS-003",
             "members[" + std::to_string(i) + "].name: '" + ms[i].name +
               "' is already the name of members[" + std::to_string(index[ms[i].name]) + "]",
             "give each member its own name");
  return index;
}

// 3. Exactly one entry member.
std::size_t the_entry(const Roster& roster, const NameIndex& index) {
  std::vector<std::string> entries;
  for (const auto& m : roster.members)
    if (m.entry) entries.push_back(m.name);
  if (entries.empty())
    refuse(roster, "E-ROS-002", "members: no member is the entry member",
           "mark exactly one member with entry: true");
  if (entries.size() > 1)
    refuse(roster, "E-ROS-002", "members: more than one member claims to be the entry member: " + comma_list(entries),
           "keep entry: true on exactly one of " + comma_list(entries));
  return index.at(entries.front());
}

// 4. Every rule names members.
void rules_name_members(const Roster& roster, const NameIndex& index) {
  for (std::size_t i = 0; i < roster.rules.size(); ++i) {
    const auto& rule = roster.rules[i];
    const std::string at = "reachability[" + std::to_string(i) + "]";
    if (!index.count(rule.from))
      refuse(roster, "E-ROS-004", at + ".from: '" + rule.from + "' is not a member of this roster",
             "name a member declared under members, or correct the spelling");
    for (std::size_t j = 0; j < rule.to.size(); ++j)
      if (!index.count(rule.to[j]))
        refuse(roster, "E-ROS-004",
               at + ".to[" + std::to_string(j) + "]: '" + rule.to[j] + "' is not a member of this roster",
               "name a member declared under members, or correct the spelling");
  }
}

// 5. The entry member is never a callee.
void entry_never_called(const Roster& roster, std::size_t entry) {
  const std::string& name = roster.members[entry].name;
  for (std::size_t i = 0; i < roster.rules.size(); ++i)
    for (const auto& to : roster.rules[i].to)
      if (to == name)
        refuse(roster, "E-ROS-008",
               "reachability[" + std::to_string(i) + "].to: lists '" + to +
                 "', the entry member, which no member may call",
               "remove '" + to + "' from the rule; to hear from a member, let the entry member call it");
}

// 6. Every member resolves, bound to its stored bytes; a member named by path is installed from
// its folder first (when its bytes changed), and bound to exactly what was installed.
std::vector<AdmittedMember> resolve_members(Roster& roster, const StoreRoots& stores,
                                            std::vector<PathInstall>& installs) {
  std::vector<AdmittedMember> out;
  for (auto& m : roster.members) {
    std::string pinned;
    if (!m.path.empty()) {
      PathInstall p = install_path_member(roster, m, stores);
      m.capsule = p.outcome.capsule.name;
      m.version = p.outcome.capsule.version;
      pinned = p.outcome.capsule.sha256;
      installs.push_back(std::move(p));
    }
    auto resolved = resolve_capsule(stores, m.capsule, m.version);
    if (auto* miss = std::get_if<ResolveMiss>(&resolved))
      refuse(roster, "E-ROS-007", ref(m) + ": " + miss->why, miss->fix);
    auto& capsule = std::get<ResolvedCapsule>(resolved);
    if (!pinned.empty() && capsule.stored.sha256 != pinned)
      refuse(roster, "E-ROS-007",
             ref(m) + ": the copy installed from " + m.path + " (sha256 " + pinned + ") was replaced in the " +
               to_string(capsule.stored.scope) + " store before it was admitted (sha256 " + capsule.stored.sha256 + ")",
             "run again, and do not install into this project's store while mur runs");
    out.push_back(AdmittedMember{m, std::move(capsule), {}, {}, {}});
  }
  return out;
}

// 7. Explicit rules: every callee consents (the lowest roster index is reported); `reach: all`
// adds every edge between two consenting members that does not reach the entry.
EdgeSet consented_edges(const Roster& roster, const NameIndex& index, const Admission& a) {
  const auto& ms = roster.members;
  auto accepts = [&](std::size_t i) { return a.members[i].capsule.manifest.accepts_peer_tasks; };
  EdgeSet edges;
  std::optional<std::size_t> refusing;
  for (const auto& rule : roster.rules)
    for (const auto& to : rule.to) {
      const std::size_t t = index.at(to);
      edges.emplace(index.at(rule.from), t);
      if (!accepts(t) && (!refusing || t < *refusing)) refusing = t;
    }
  if (refusing) {
    std::vector<std::string> callers;
    for (const auto& rule : roster.rules)
      if (std::find(rule.to.begin(), rule.to.end(), ms[*refusing].name) != rule.to.end() &&
          std::find(callers.begin(), callers.end(), rule.from) == callers.end())
        callers.push_back(rule.from);
    refuse(roster, "E-ROS-005",
           ref(ms[*refusing]) + " is called by " + comma_list(callers) + " but its murmur.yaml does not accept peer tasks",
           "add exports: {peer_tasks: {accept: true}} to " + ms[*refusing].capsule +
             "'s murmur.yaml and reinstall it, or remove the rule");
  }
  if (roster.reach_all)
    for (std::size_t f = 0; f < ms.size(); ++f)
      for (std::size_t t = 0; t < ms.size(); ++t)
        if (f != t && t != a.entry && accepts(f) && accepts(t)) edges.emplace(f, t);
  return edges;
}

// 8. Any edge ⇒ every member serves an authenticated door.
void doors_authenticated(const Roster& roster, const Admission& a, const EdgeSet& edges) {
  if (edges.empty()) return;
  for (const auto& m : a.members)
    if (!m.capsule.manifest.authentication)
      refuse(roster, "E-ROS-006",
             ref(m.declared) + " serves a public door, but in a formation with calls every member's door must be authenticated",
             "add network: {authentication: {scheme: bearer}} to " + m.declared.capsule +
               "'s murmur.yaml and reinstall it");
}

// The edges, in (from, to) roster order, and each member's callees and callers in roster order.
void bind_edges(Admission& a, const EdgeSet& edges, const NameIndex& index) {
  const auto& ms = a.roster.members;
  for (const auto& [f, t] : edges) {
    a.edges.push_back(Edge{ms[f].name, ms[t].name});
    a.members[f].callees.push_back(ms[t].name);
    a.members[t].callers.push_back(ms[f].name);
  }
  for (auto& m : a.members)
    std::sort(m.callers.begin(), m.callers.end(),
              [&](const std::string& x, const std::string& y) { return index.at(x) < index.at(y); });
}

// 9. Every capabilities.spawn.allow entry resolves as a member would, bound to its bytes.
void resolve_spawnable(Admission& a, const StoreRoots& stores) {
  for (auto& m : a.members)
    m.spawnable = resolve_spawn_allow(m.capsule.manifest, stores, a.roster.file + ": " + ref(m.declared));
}

// 10. A child and a callee are both named by their name ({{answer.NAME}}): never the same.
void children_are_not_callees(const Admission& a) {
  for (const auto& m : a.members) {
    const auto& allow = m.capsule.manifest.spawn_allow;
    for (std::size_t i = 0; i < allow.size(); ++i)
      if (std::find(m.callees.begin(), m.callees.end(), allow[i].name) != m.callees.end())
        refuse(a.roster, "E-ROS-010",
               ref(m.declared) + ": capabilities.spawn.allow[" + std::to_string(i) + "]: the capsule " +
                 allow[i].text() + " it may delegate to has the name of member '" + allow[i].name +
                 "', which " + m.declared.name + " may call; a delegation and a call would both answer as {{answer." +
                 allow[i].name + "}}",
               "rename member '" + allow[i].name + "' in the roster, or remove " + allow[i].text() +
                 " from " + m.declared.capsule + "'s capabilities.spawn.allow and reinstall it");
  }
}

// 11. The members fit under the ceiling of live members and children (limits.max_live).
void members_under_ceiling(const Roster& roster) {
  if (roster.members.size() <= static_cast<std::size_t>(roster.max_live)) return;
  refuse(roster, "E-ROS-011",
         "limits.max_live: " + std::to_string(roster.max_live) + " live members and delegated children at once is fewer " +
           "than the roster's " + std::to_string(roster.members.size()) + " members",
         "raise limits.max_live to at least " + std::to_string(roster.members.size()) + " (and more for the children " +
           "members may delegate to), or remove members");
}

// W-ROS-006: a member may delegate, but the ceiling leaves no slot beside the members.
void warn_no_room_for_children(Admission& a) {
  if (a.roster.members.size() < static_cast<std::size_t>(a.roster.max_live)) return;
  std::vector<std::string> delegating;
  for (const auto& m : a.members)
    if (!m.capsule.manifest.spawn_allow.empty()) delegating.push_back(m.declared.name);
  if (delegating.empty()) return;
  a.warnings.push_back(Warning{
    "W-ROS-006",
    "limits.max_live (" + std::to_string(a.roster.max_live) + ") is taken up by the roster's " +
      (a.roster.members.size() == 1 ? std::string("one member") : std::to_string(a.roster.members.size()) + " members") +
      ", yet " + comma_list(delegating) +
      " may delegate: every delegation will be refused at the ceiling",
    "raise limits.max_live above " + std::to_string(a.roster.members.size()) +
      " by as many children as may run at once, or remove capabilities.spawn.allow from those capsules"});
}

// W-ROS-001: more callers than tasks held at once.
void warn_crowded_callees(Admission& a) {
  for (const auto& m : a.members) {
    const int held = m.capsule.manifest.tasks_held_at_once();
    const int callers = static_cast<int>(m.callers.size());
    if (callers <= held) continue;
    const int depth = std::max(callers - 1, 1);
    const bool is_queue = m.capsule.manifest.lifecycle.task_acceptance == TaskAcceptance::queue;
    a.warnings.push_back(Warning{
      "W-ROS-001",
      ref(m.declared) + " may be called by " + std::to_string(callers) + " members (" + comma_list(m.callers) +
        ") but holds " + std::to_string(held) + " task(s) at once; the others are turned away busy until it has room",
      std::string("in ") + m.declared.capsule + "'s murmur.yaml set " +
        (is_queue ? "" : "lifecycle.task_acceptance: queue and ") + "lifecycle.queue_depth: " + std::to_string(depth)});
  }
}

// W-RUN-008: a caller whose egress cannot reach a loopback door.
void warn_callers_without_localhost(Admission& a) {
  for (const auto& m : a.members)
    if (!m.callees.empty() && !m.capsule.manifest.allows_localhost())
      a.warnings.push_back(Warning{
        "W-RUN-008",
        ref(m.declared) + " may call " + comma_list(m.callees) +
          " but its capabilities.network.allow does not list localhost, so every call will fail",
        "add capabilities: {network: {allow: [localhost]}} to " + m.declared.capsule + "'s murmur.yaml and reinstall it"});
}

// W-ROS-002: a script that calls a member the roster does not let it call.
void warn_scripts_calling_outside(Admission& a) {
  for (const auto& m : a.members) {
    const auto& inf = m.capsule.manifest.inference;
    if (inf.transport != Transport::script) continue;
    std::vector<std::string> named;
    auto scan = [&](const std::vector<ScriptTurn>& turns) {
      for (const auto& t : turns)
        for (const auto& c : t.calls)
          if (std::find(m.callees.begin(), m.callees.end(), c.member) == m.callees.end() &&
              std::find(named.begin(), named.end(), c.member) == named.end())
            named.push_back(c.member);
    };
    scan(inf.turns);
    for (const auto& r : inf.routes) scan(r.turns);
    if (named.empty()) continue;
    a.warnings.push_back(Warning{
      "W-ROS-002",
      ref(m.declared) + ": its script calls " + comma_list(named) + ", which this roster does not let it call" +
        (m.callees.empty() ? std::string() : " (it may call " + comma_list(m.callees) + ")") + "; those calls will be refused",
      "add a reachability rule from " + m.declared.name + " to " + comma_list(named) + ", or change the script of " +
        m.declared.capsule});
  }
}

// W-ROS-003: a callee whose lifecycle ends it after its first task.
void warn_callees_that_exit(Admission& a) {
  for (const auto& m : a.members)
    if (!m.callers.empty() && m.capsule.manifest.lifecycle.after_task == AfterTask::exit)
      a.warnings.push_back(Warning{
        "W-ROS-003",
        ref(m.declared) + " may be called by " + comma_list(m.callers) +
          " but its lifecycle.after_task is exit: it ends after its first task, and every later call to it "
          "reaches a member that has ended",
        "in " + m.declared.capsule + "'s murmur.yaml set lifecycle.after_task: sleep, so it stays for the "
          "formation's later calls"});
}

// 12. Every member's host is one the roster declares, the entry runs on the launcher's machine,
// and each host's key file holds a certificate (the one that host must present).
void hosts_declared(const Roster& roster) {
  std::string declared;
  for (const auto& h : roster.hosts) declared += (declared.empty() ? "" : ", ") + h.name;
  for (std::size_t i = 0; i < roster.members.size(); ++i) {
    const auto& m = roster.members[i];
    if (m.host.empty()) continue;
    if (m.entry)
      refuse(roster, "E-HST-010",
             "members[" + std::to_string(i) + "].host: the entry member '" + m.name + "' runs on the launcher's machine",
             "remove host: from the entry; place its callees on other hosts instead");
    if (std::none_of(roster.hosts.begin(), roster.hosts.end(), [&](const RosterHost& h) { return h.name == m.host; }))
      refuse(roster, "E-HST-001",
             "members[" + std::to_string(i) + "].host: '" + m.host + "' is not a host of this roster" +
               (declared.empty() ? std::string(" (it declares none)") : " (it declares " + declared + ")"),
             "declare it under hosts: {" + m.host + ": {address: HOST:PORT, key: FILE}}, or correct the spelling");
  }
  for (const auto& h : roster.hosts)
    if (certificate_pem(host_key_path(roster, h)).empty())
      refuse(roster, "E-HST-008",
             "hosts." + h.name + ".key: " + host_key_path(roster, h) + " holds no certificate",
             "copy the host's certificate there: run mur host --certificate on that machine");
}

// 12, for the edges: a member placed on a host calls only members whose doors another machine
// can reach (those placed on a host: TLS on the host's address). A callee on the launcher's
// machine serves on its loopback only, which from the host is the host's own.
void remote_callers_reach(const Admission& a) {
  std::map<std::string, std::string> host_of;
  for (const auto& m : a.members) host_of[m.declared.name] = m.declared.host;
  for (const auto& m : a.members) {
    if (m.declared.host.empty()) continue;
    for (const auto& callee : m.callees)
      if (host_of[callee].empty())
        refuse(a.roster, "E-HST-012",
               "member '" + m.declared.name + "' runs on host '" + m.declared.host + "' and may call '" + callee +
                 "', which runs on the launcher's machine: its door listens on that machine's loopback only",
               "place '" + callee + "' on a host too (host: NAME), or '" + m.declared.name + "' on the launcher's machine");
  }
}

} // namespace

std::string host_key_path(const Roster& roster, const RosterHost& h) {
  return !h.key.empty() && h.key.front() == '/' ? h.key : roster.project_dir + "/" + h.key;
}

Admission admit(const Roster& declared, const StoreRoots& stores) {
  const NameIndex index = unique_names(declared);        // 2
  const std::size_t entry = the_entry(declared, index);  // 3
  rules_name_members(declared, index);                   // 4
  entry_never_called(declared, entry);                   // 5
  Admission a;
  a.roster = declared;
  a.entry = entry;
  a.members = resolve_members(a.roster, stores, a.installed); // 6 (path members: capsule and version filled in)
  const Roster& roster = a.roster;
  const EdgeSet edges = consented_edges(roster, index, a); // 7
  doors_authenticated(roster, a, edges);                 // 8
  bind_edges(a, edges, index);
  resolve_spawnable(a, stores);                          // 9
  children_are_not_callees(a);                           // 10
  members_under_ceiling(roster);                         // 11
  hosts_declared(roster);                                // 12
  remote_callers_reach(a);
  warn_crowded_callees(a);
  warn_callers_without_localhost(a);
  warn_scripts_calling_outside(a);
  warn_callees_that_exit(a);
  warn_no_room_for_children(a);
  if (auto w = call_cycle_warning(a)) a.warnings.push_back(*w);
  for (auto& w : source_drift_warnings(a)) a.warnings.push_back(std::move(w));
  std::set<std::string> looked_at; // a capsule two members run is warned about once
  for (const auto& m : a.members)
    if (looked_at.insert(m.declared.capsule + "@" + m.declared.version).second)
      if (auto w = spawn_cycle_warning(m.capsule.manifest, stores, ref(m.declared))) a.warnings.push_back(*w);
  return a;
}

Admission admit_roster_at(const std::string& roster_arg) {
  RosterLocation where = locate_roster(roster_arg);
  Roster roster = load_roster(where);
  return admit(roster, StoreRoots::for_project(where.project_dir));
}

} // namespace mur
