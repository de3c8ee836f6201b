#include "launcher/cli/cmd_ps.hpp"

#include "launcher/base/launcher_record.hpp"
#include "launcher/traces/session_traces.hpp"
#include "launcher/traces/trace_usage.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

namespace mur {
namespace {

std::string uptime(std::int64_t started_ms) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch()).count();
  const std::int64_t s = std::max<std::int64_t>(0, (now - started_ms) / 1000);
  std::ostringstream o;
  if (s >= 3600) o << s / 3600 << "h" << (s % 3600) / 60 << "m";
  else if (s >= 60) o << s / 60 << "m" << s % 60 << "s";
  else o << s << "s";
  return o.str();
}

// `formation <id>: L listed (a, b, …)[, C delegated child(ren)][, P pruned now]`
// (docs/spec/formation.md §Stopping and listing).
std::string summary_line(const std::string& id, const std::vector<RunningRecord>& records, int pruned,
                         const std::vector<RemoteMember>& remote) {
  std::size_t listed = remote.size(), children = 0;
  std::string names;
  for (const auto& r : records) {
    if (!r.spawned_by.empty()) {
      ++children;
      continue;
    }
    ++listed;
    names += (names.empty() ? "" : ", ") + (r.formation_member.empty() ? r.session_id : r.formation_member);
  }
  for (const auto& m : remote) names += (names.empty() ? "" : ", ") + m.member + " on " + m.host;
  std::string line = "formation " + id + ": " + std::to_string(listed) + " listed";
  if (listed > 0) line += " (" + names + ")";
  if (children > 0) line += ", " + std::to_string(children) + " delegated child(ren)";
  if (pruned > 0) line += ", " + std::to_string(pruned) + " pruned now";
  return line;
}

// "  restarted N time(s)" for a member its launcher restarted, else "".
std::string restarted_words(const LauncherRecord* l, const std::string& member) {
  if (l == nullptr || member.empty()) return {};
  auto it = l->restarts.find(member);
  if (it == l->restarts.end() || it->second <= 0) return {};
  return "  restarted " + std::to_string(it->second) + (it->second == 1 ? " time" : " times");
}

// The records in listing order with their depth: each delegated child right after its parent
// (children of children deeper); a child whose parent is not listed stands at depth 0.
std::vector<std::pair<const RunningRecord*, int>> nested(const std::vector<RunningRecord>& records) {
  std::map<std::string, std::vector<const RunningRecord*>> children;
  std::map<std::string, bool> listed;
  for (const auto& r : records) listed[r.session_id] = true;
  for (const auto& r : records)
    if (!r.spawned_by.empty() && listed.count(r.spawned_by)) children[r.spawned_by].push_back(&r);
  std::vector<std::pair<const RunningRecord*, int>> out;
  std::function<void(const RunningRecord*, int)> put = [&](const RunningRecord* r, int depth) {
    out.emplace_back(r, depth);
    if (depth > 16) return; // a cycle cannot come from real records; bounded anyway
    for (const auto* c : children[r->session_id]) put(c, depth + 1);
  };
  for (const auto& r : records)
    if (r.spawned_by.empty() || !listed.count(r.spawned_by)) put(&r, 0);
  return out;
}

// What a running session's ended tasks spent themselves, as its trace says (0 when unreadable),
// at its price.
PricedUsage usage_so_far(const RunningRecord& r) {
  auto t = find_session(r.session_id, r.workdir);
  return t ? priced(t->usage, t->price) : PricedUsage{};
}

} // namespace

int cmd_ps(bool as_json) {
  int pruned = 0;
  std::map<std::string, std::vector<RunningRecord>> by_formation; // "" = no formation
  std::map<std::string, int> pruned_of;                           // member records pruned, per formation
  for (auto& r : list_running_records()) {
    if (!record_is_live(r)) {
      remove_running_record(r.session_id);
      ++pruned;
      if (!r.formation_id.empty()) ++pruned_of[r.formation_id]; // a listed formation's line says so
      continue;
    }
    by_formation[r.formation_id].push_back(std::move(r));
  }
  std::map<std::string, LauncherRecord> launchers;
  for (auto& l : list_launcher_records()) {
    if (!launcher_is_live(l)) {
      remove_launcher_record(l.formation_id);
      ++pruned;
      continue;
    }
    by_formation[l.formation_id]; // a launcher whose members are not up yet is still listed
    launchers[l.formation_id] = l;
  }

  if (as_json) {
    auto formations = nlohmann::json::array();
    auto sessions = nlohmann::json::array();
    for (auto it = by_formation.rbegin(); it != by_formation.rend(); ++it) { // newest first
      auto members = nlohmann::json::array();
      PricedUsage total;
      for (const auto& r : it->second) {
        const PricedUsage used = usage_so_far(r);
        add_priced(total, used);
        members.push_back({{"session_id", r.session_id}, {"member", r.formation_member}, {"capsule", r.capsule_name},
                           {"version", r.capsule_version}, {"pid", r.pid}, {"url", r.url}, {"workdir", r.workdir},
                           {"started_at", r.started_at},
                           {"spawned_by", r.spawned_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.spawned_by)},
                           {"usage", usage_shape(used)}});
      }
      const auto l = launchers.find(it->first);
      for (auto& m : members) // how often its launcher restarted each member (roster `restart:`)
        m["restarts"] = l == launchers.end() || !l->second.restarts.count(m["member"].get<std::string>())
                          ? 0 : l->second.restarts.at(m["member"].get<std::string>());
      if (it->first.empty()) {
        sessions = members;
        continue;
      }
      if (l != launchers.end())
        for (const auto& m : l->second.remote) // members on other hosts: what their launcher learnt
          members.push_back({{"session_id", m.session_id}, {"member", m.member}, {"host", m.host}, {"capsule", m.capsule},
                             {"pid", m.pid}, {"url", m.url}, {"started_at", m.started_at},
                             {"restarts", l->second.restarts.count(m.member) ? l->second.restarts.at(m.member) : 0},
                             {"usage", nullptr}}); // its trace is on its host
      nlohmann::json f{{"formation_id", it->first}, {"members", members}, {"usage", usage_shape(total)}};
      f["launcher_pid"] = l == launchers.end() ? nlohmann::json(nullptr) : nlohmann::json(l->second.pid);
      f["entry"] = l == launchers.end() ? nlohmann::json(nullptr) : nlohmann::json(l->second.entry);
      formations.push_back(f);
    }
    std::cout << nlohmann::json{{"formations", formations}, {"sessions", sessions}, {"pruned", pruned}}.dump() << "\n";
    return exit_ok;
  }

  // One statement when nothing runs; otherwise the listing, then what was cleaned up.
  const std::string cleaned = std::to_string(pruned) + " record(s) of processes that are gone removed";
  if (by_formation.empty()) {
    std::cout << "nothing is running" << (pruned > 0 ? " (" + cleaned + ")" : std::string()) << "\n";
    return exit_ok;
  }
  for (auto it = by_formation.rbegin(); it != by_formation.rend(); ++it) {
    auto l = launchers.find(it->first);
    if (it->first.empty()) std::cout << "sessions outside a formation\n";
    else
      std::cout << summary_line(it->first, it->second, pruned_of[it->first],
                                l == launchers.end() ? std::vector<RemoteMember>{} : l->second.remote)
                << "\n"
                << "  " << (l == launchers.end() ? std::string("no launcher")
                                                 : "launcher pid " + std::to_string(l->second.pid) + ", entry " + l->second.entry)
                << "\n";
    PricedUsage total;
    for (const auto& [rp, depth] : nested(it->second)) {
      const RunningRecord& r = *rp;
      const PricedUsage used = usage_so_far(r);
      add_priced(total, used);
      // A delegated child is not a member: it shows under its parent as `└ capsule:<name>`.
      const std::string name = !r.spawned_by.empty() ? "\xE2\x94\x94 capsule:" + r.capsule_name
                               : r.formation_member.empty() ? "-" : r.formation_member;
      std::cout << "  " << std::string(static_cast<std::size_t>(depth) * 2, ' ') << std::left << std::setw(10) << name
                << " " << r.session_id << "  pid " << std::setw(7) << r.pid << " " << std::setw(7) << uptime(r.started_at)
                << " " << r.url << "  " << r.capsule_name << "@" << r.capsule_version
                << (!r.spawned_by.empty() && depth == 0 ? "  (spawned by " + r.spawned_by + ")" : std::string())
                << restarted_words(l == launchers.end() ? nullptr : &l->second, r.spawned_by.empty() ? r.formation_member : "")
                << "\n";
      // What its ended tasks spent, on a line of its own under it (the member line is long already).
      if (!used.usage.is_zero())
        std::cout << "  " << std::string(static_cast<std::size_t>(depth) * 2 + 11, ' ') << "usage: " << usage_words(used)
                  << "\n";
    }
    if (l != launchers.end())
      for (const auto& m : l->second.remote)
        std::cout << "  " << std::left << std::setw(10) << m.member << " " << m.session_id << "  pid " << std::setw(7) << m.pid
                  << " " << std::setw(7) << uptime(m.started_at) << " " << m.url << "  " << m.capsule << "  on host " << m.host
                  << restarted_words(&l->second, m.member) << "\n";
    if (!it->first.empty() && !total.usage.is_zero()) std::cout << "  usage of its ended tasks: " << usage_words(total) << "\n";
  }
  if (pruned > 0) std::cout << cleaned << "\n";
  return exit_ok;
}

} // namespace mur
