#include "launcher/cli/cmd_stop.hpp"

#include "http/curl_pool.hpp"
#include "launcher/base/launcher_record.hpp"
#include "launcher/traces/session_traces.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/door_method.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/pid_wait.hpp"
#include "os/process_start.hpp"

#include <nlohmann/json.hpp>

#include <csignal>
#include <iostream>
#include <set>

namespace mur {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds MEMBERS_GONE{25'000};
constexpr milliseconds AFTER_KILL{5'000};

milliseconds of_seconds(double s) { return milliseconds(static_cast<long long>(s * 1000)); }

// Signals `pid` only while it is still the process the record named.
bool signal_if_same(std::int64_t pid, const std::string& start, int sig) {
  if (process_start_of(static_cast<pid_t>(pid)) != start) return false;
  return ::kill(static_cast<pid_t>(pid), sig) == 0;
}

// POST session/stop to the door; true when it answered 200.
bool door_stop(const RunningRecord& r) {
  CurlPool pool;
  HttpCall c;
  c.url = r.url + "/";
  c.body = nlohmann::json{{"jsonrpc", "2.0"}, {"id", "stop-1"}, {"method", to_string(DoorMethod::session_stop)}, {"params", nlohmann::json::object()}}.dump();
  c.headers = {"Content-Type: application/json", "A2A-Version: 1.0"};
  if (r.operator_token) c.headers.push_back("Authorization: Bearer " + r.operator_token->expose());
  c.timeout = milliseconds(5000);
  return call_and_wait(pool, std::move(c)).status == 200;
}

// session/stop, SIGTERM, SIGKILL — each given `grace`. Returns how it went.
std::string stop_session(const RunningRecord& r, milliseconds grace) {
  const pid_t pid = static_cast<pid_t>(r.pid);
  if (door_stop(r) && wait_pid_gone(pid, grace)) return "session/stop";
  if (signal_if_same(r.pid, r.process_start, SIGTERM) && wait_pid_gone(pid, grace)) return "SIGTERM";
  if (signal_if_same(r.pid, r.process_start, SIGKILL) && wait_pid_gone(pid, AFTER_KILL)) return "SIGKILL";
  return record_is_live(r) ? "still running" : "gone";
}

std::vector<RunningRecord> members_of(const std::string& frm, int& pruned) {
  std::vector<RunningRecord> live;
  for (auto& r : list_running_records()) {
    if (r.formation_id != frm) continue;
    if (record_is_live(r)) live.push_back(std::move(r));
    else {
      remove_running_record(r.session_id);
      ++pruned;
    }
  }
  return live;
}

// Without running/<frm>.json, the launcher is the one the members' records name
// (formation_launcher). More than one ⇒ E-RUN-024, nothing signalled.
std::optional<LauncherRecord> launcher_named_by(const std::vector<RunningRecord>& members, const std::string& frm) {
  std::optional<LauncherRecord> found;
  for (const auto& r : members) {
    if (!r.formation_launcher) continue;
    if (found && (found->pid != r.formation_launcher->pid || found->process_start != r.formation_launcher->process_start))
      throw Failure("E-RUN-024", "the members of formation " + frm + " name more than one launcher (pids " +
                                   std::to_string(found->pid) + " and " + std::to_string(r.formation_launcher->pid) + ")",
                    "stop them one by one with mur stop ses_…");
    if (found) continue;
    LauncherRecord l;
    l.formation_id = frm;
    l.pid = r.formation_launcher->pid;
    l.process_start = r.formation_launcher->process_start;
    found = l;
  }
  return found;
}

int stop_formation(const std::string& frm, milliseconds grace) {
  int pruned = 0;
  const auto members = members_of(frm, pruned);
  auto launcher = read_launcher_record(frm);
  if (!launcher) launcher = launcher_named_by(members, frm); // running/<frm>.json is missing
  const bool launcher_live = launcher && launcher_is_live(*launcher);
  if (launcher && !launcher_live) remove_launcher_record(frm);
  if (!launcher_live && members.empty())
    throw Failure("E-RUN-022",
                  pruned == 0 ? "no member of formation " + frm + " is running on this machine"
                              : "formation " + frm + " is not running: " + std::to_string(pruned) +
                                  " member record(s) named processes that are gone, and were removed",
                  "list what runs with mur ps");

  std::cout << "stopped:  " << frm << "\n";
  if (launcher_live) {
    const pid_t pid = static_cast<pid_t>(launcher->pid);
    if (!signal_if_same(launcher->pid, launcher->process_start, SIGTERM))
      throw Failure("E-RUN-024", "the launcher (pid " + std::to_string(pid) + ") could not be sent SIGTERM",
                    "stop it as the user that started it");
    if (wait_pid_gone(pid, grace)) {
      std::cout << "launcher: pid " << pid << ", SIGTERM\n";
    } else {
      signal_if_same(launcher->pid, launcher->process_start, SIGKILL);
      wait_pid_gone(pid, AFTER_KILL);
      std::cout << "launcher: pid " << pid << ", SIGKILL after " << grace.count() / 1000.0 << "s\n";
      remove_launcher_record(frm);
    }
  } else {
    std::cout << "launcher: none — no running launcher for this formation\n";
  }

  std::vector<pid_t> pids;
  std::vector<std::string> by_hand;
  std::set<std::string> listed;
  for (const auto& r : members) listed.insert(r.session_id);
  for (const auto& r : members) {
    // A delegated child ends with its parent (its spawner lifeline); only an orphan is stopped by hand.
    const bool ends_with_parent = !r.spawned_by.empty() && listed.count(r.spawned_by);
    if (!launcher_live && !r.formation_lifeline && !ends_with_parent) by_hand.push_back(stop_session(r, grace));
    pids.push_back(static_cast<pid_t>(r.pid));
  }
  const bool all_gone = wait_pids_gone(pids, MEMBERS_GONE);
  for (auto it = members.rbegin(); it != members.rend(); ++it) { // newest first
    const bool running = record_is_live(*it);
    if (!running) remove_running_record(it->session_id);
    auto t = find_session(it->session_id, it->workdir);
    std::cout << (it->spawned_by.empty() ? "member:   " : "child:    ") << it->session_id << "  " << it->capsule_name << "@" << it->capsule_version << "  "
              << (t ? ending_of(*t, running) : running ? "still running" : "no session_end") << "\n";
  }
  if (!all_gone)
    throw Failure("E-RUN-024", "members of formation " + frm + " are still running after " +
                                 std::to_string(MEMBERS_GONE.count() / 1000) + "s",
                  "check them with mur ps; stop one with mur stop ses_…");
  return exit_ok;
}

} // namespace

int cmd_stop(const std::string& target, double timeout_seconds) {
  const milliseconds grace = of_seconds(timeout_seconds > 0 ? timeout_seconds : 10);
  if (target.rfind("frm_", 0) == 0) {
    if (!ids::is_valid(target, ids::formation))
      throw Failure("E-RUN-022", "'" + target + "' is not a formation id: frm_ and 32 lowercase hex digits",
                    "copy the id from mur ps");
    return stop_formation(target, grace);
  }
  if (!ids::is_valid(target, ids::session))
    throw Failure("E-RUN-022", "'" + target + "' is neither a formation id (frm_…) nor a session id (ses_…)",
                  "copy the id from mur ps");
  auto rec = read_running_record(target);
  if (!rec || !record_is_live(*rec)) {
    if (rec) remove_running_record(target);
    throw Failure("E-RUN-022", "no running session " + target, "list what runs with mur ps");
  }
  if (!rec->spawned_by.empty()) { // a delegated child ends with its parent, which holds its lifeline
    auto parent = read_running_record(rec->spawned_by);
    if (parent && record_is_live(*parent))
      throw Failure("E-RUN-053",
                    "session " + target + " is a delegated child of " + rec->spawned_by +
                      ", which is running: the child ends when its parent's task no longer needs it, or with its parent",
                    "stop its parent: mur stop " + rec->spawned_by +
                      (parent->formation_id.empty() ? std::string() : " (or its formation: mur stop " + parent->formation_id + ")"));
  }
  const std::string how = stop_session(*rec, grace);
  if (how == "still running")
    throw Failure("E-RUN-024", "session " + target + " is still running", "check it with mur ps");
  remove_running_record(target);
  std::cout << "stopped:  " << target << " (" << how << ")\n";
  return exit_ok;
}

} // namespace mur
