#include "launcher/admission.hpp"

#include "capsule/member_wiring.hpp"

#include "messages/failure.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace mur {
namespace {

std::string joined(const std::vector<std::string>& xs) {
  std::string out;
  for (const auto& x : xs) out += (out.empty() ? "" : ", ") + x;
  return out;
}

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

Admission admit(const Roster& roster, const StoreRoots& stores) {
  const auto& ms = roster.members;
  std::map<std::string, std::size_t> index;

  // 2. Unique names.
  for (std::size_t i = 0; i < ms.size(); ++i)
    if (!index.emplace(ms[i].name, i).second)
      refuse(roster, "E-ROS-003",
             "members[" + std::to_string(i) + "].name: '" + ms[i].name +
               "' is already the name of members[" + std::to_string(index[ms[i].name]) + "]",
             "give each member its own name");

  // 3. Exactly one entry member.
  std::vector<std::string> entries;
  for (const auto& m : ms)
    if (m.entry) entries.push_back(m.name);
  if (entries.empty())
    refuse(roster, "E-ROS-002", "members: no member is the entry member",
           "mark exactly one member with entry: true");
  if (entries.size() > 1)
    refuse(roster, "E-ROS-002", "members: more than one member claims to be the entry member: " + joined(entries),
           "keep entry: true on exactly one of " + joined(entries));
  const std::size_t entry = index[entries.front()];

  // 4. Every rule names members.
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

  // 5. The entry member is never a callee.
  for (std::size_t i = 0; i < roster.rules.size(); ++i)
    for (const auto& to : roster.rules[i].to)
      if (to == ms[entry].name)
        refuse(roster, "E-ROS-008",
               "reachability[" + std::to_string(i) + "].to: lists '" + to +
                 "', the entry member, which no member may call",
               "remove '" + to + "' from the rule; to hear from a member, let the entry member call it");

  // 6. Every member resolves, bound to its stored bytes.
  Admission a;
  a.roster = roster;
  a.entry = entry;
  for (const auto& m : ms) {
    auto resolved = resolve_capsule(stores, m.capsule, m.version);
    if (auto* miss = std::get_if<ResolveMiss>(&resolved))
      refuse(roster, "E-ROS-007", ref(m) + ": " + miss->why, miss->fix);
    a.members.push_back(AdmittedMember{m, std::move(std::get<ResolvedCapsule>(resolved)), {}, {}, {}});
  }
  // 7. Explicit rules: every callee consents; the lowest roster index is reported.
  std::set<std::pair<std::size_t, std::size_t>> edges;
  std::optional<std::size_t> refusing;
  for (const auto& rule : roster.rules)
    for (const auto& to : rule.to) {
      const std::size_t t = index[to];
      edges.emplace(index[rule.from], t);
      if (!a.members[t].capsule.manifest.accepts_peer_tasks && (!refusing || t < *refusing)) refusing = t;
    }
  if (refusing) {
    std::vector<std::string> callers;
    for (const auto& rule : roster.rules)
      if (std::find(rule.to.begin(), rule.to.end(), ms[*refusing].name) != rule.to.end() &&
          std::find(callers.begin(), callers.end(), rule.from) == callers.end())
        callers.push_back(rule.from);
    refuse(roster, "E-ROS-005",
           ref(ms[*refusing]) + " is called by " + joined(callers) +
             " but its murmur.yaml does not accept peer tasks",
           "add exports: {peer_tasks: {accept: true}} to " + ms[*refusing].capsule +
             "'s murmur.yaml and reinstall it, or remove the rule");
  }
  if (roster.reach_all)
    for (std::size_t f = 0; f < ms.size(); ++f)
      for (std::size_t t = 0; t < ms.size(); ++t)
        if (f != t && t != entry && a.members[f].capsule.manifest.accepts_peer_tasks &&
            a.members[t].capsule.manifest.accepts_peer_tasks)
          edges.emplace(f, t);

  // 8. Any edge ⇒ every member serves an authenticated door.
  if (!edges.empty())
    for (const auto& m : a.members)
      if (!m.capsule.manifest.authentication)
        refuse(roster, "E-ROS-006",
               ref(m.declared) + " serves a public door, but in a formation with calls every member's door must be authenticated",
               "add network: {authentication: {scheme: bearer}} to " + m.declared.capsule +
                 "'s murmur.yaml and reinstall it");

  for (const auto& [f, t] : edges) { // std::set orders by (from index, to index)
    a.edges.push_back(Edge{ms[f].name, ms[t].name});
    a.members[f].callees.push_back(ms[t].name);
    a.members[t].callers.push_back(ms[f].name);
  }
  for (auto& m : a.members) { // callers in roster order
    std::sort(m.callers.begin(), m.callers.end(),
              [&](const std::string& x, const std::string& y) { return index[x] < index[y]; });
  }

  // 9. Every capabilities.spawn.allow entry resolves as a member would, bound to its bytes.
  for (auto& m : a.members)
    m.spawnable = resolve_spawn_allow(m.capsule.manifest, stores, roster.file + ": " + ref(m.declared));

  // 10. A child and a callee are both named by their name ({{answer.NAME}}): never the same.
  for (const auto& m : a.members) {
    const auto& allow = m.capsule.manifest.spawn_allow;
    for (std::size_t i = 0; i < allow.size(); ++i)
      if (std::find(m.callees.begin(), m.callees.end(), allow[i].name) != m.callees.end())
        refuse(roster, "E-ROS-010",
               ref(m.declared) + ": capabilities.spawn.allow[" + std::to_string(i) + "]: the capsule " +
                 allow[i].text() + " it may delegate to has the name of member '" + allow[i].name +
                 "', which " + m.declared.name + " may call; a delegation and a call would both answer as {{answer." +
                 allow[i].name + "}}",
               "rename member '" + allow[i].name + "' in the roster, or remove " + allow[i].text() +
                 " from " + m.declared.capsule + "'s capabilities.spawn.allow and reinstall it");
  }

  // W-ROS-001: more callers than tasks held at once.
  for (const auto& m : a.members) {
    const int held = m.capsule.manifest.tasks_held_at_once();
    const int callers = static_cast<int>(m.callers.size());
    if (callers > held) {
      const int depth = std::max(callers - 1, 1);
      const bool is_queue = m.capsule.manifest.lifecycle.task_acceptance == TaskAcceptance::queue;
      a.warnings.push_back(Warning{
        "W-ROS-001",
        ref(m.declared) + " may be called by " + std::to_string(callers) + " members (" +
          joined(m.callers) + ") but holds " + std::to_string(held) +
          " task(s) at once; the others are turned away busy until it has room",
        std::string("in ") + m.declared.capsule + "'s murmur.yaml set " +
          (is_queue ? "" : "lifecycle.task_acceptance: queue and ") +
          "lifecycle.queue_depth: " + std::to_string(depth)});
    }
  }
  // W-RUN-008: a caller whose egress cannot reach a loopback door.
  for (const auto& m : a.members)
    if (!m.callees.empty() && !m.capsule.manifest.allows_localhost())
      a.warnings.push_back(Warning{
        "W-RUN-008",
        ref(m.declared) + " may call " + joined(m.callees) +
          " but its capabilities.network.allow does not list localhost, so every call will fail",
        "add capabilities: {network: {allow: [localhost]}} to " + m.declared.capsule +
          "'s murmur.yaml and reinstall it"});
  // W-ROS-002: a script that calls a member the roster does not let it call.
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
    if (!named.empty())
      a.warnings.push_back(Warning{
        "W-ROS-002",
        ref(m.declared) + ": its script calls " + joined(named) + ", which this roster does not let it call" +
          (m.callees.empty() ? std::string() : " (it may call " + joined(m.callees) + ")") +
          "; those calls will be refused",
        "add a reachability rule from " + m.declared.name + " to " + joined(named) +
          ", or change the script of " + m.declared.capsule});
  }
  // W-ROS-003: a callee whose lifecycle ends it after its first task.
  for (const auto& m : a.members)
    if (!m.callers.empty() && m.capsule.manifest.lifecycle.after_task == AfterTask::exit)
      a.warnings.push_back(Warning{
        "W-ROS-003",
        ref(m.declared) + " may be called by " + joined(m.callers) +
          " but its lifecycle.after_task is exit: it ends after its first task, and every later call to it "
          "reaches a member that has ended",
        "in " + m.declared.capsule + "'s murmur.yaml set lifecycle.after_task: sleep, so it stays for the "
          "formation's later calls"});
  return a;
}

Admission admit_roster_at(const std::string& roster_arg) {
  RosterLocation where = locate_roster(roster_arg);
  Roster roster = load_roster(where);
  return admit(roster, StoreRoots::for_project(where.project_dir));
}

} // namespace mur
