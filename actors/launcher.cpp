#include "actors/launcher.hpp"

#include "actors/atoms.hpp"
#include "actors/door.hpp"
#include "actors/lifeline.hpp"
#include "actors/spawn_refusal.hpp"
#include "messages/credentials/address_line.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/formation_messages.hpp"

#include <caf/all.hpp>

#include <csignal>
#include <cstring>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace mur {
namespace {

enum class Phase { starting, entry_running, stopping, ended };

struct Started {
  MemberStarted info;
  bool ready = false;
  caf::actor_clock::time_point spawned;
};

struct LauncherState {
  LauncherSetup setup;
  std::unique_ptr<FormationAuthority> authority; // the signing key: memory only, dies with the actor
  std::string formation_id;
  lifelines_handle lifelines;
  Phase phase = Phase::starting;
  std::map<std::string, Started> started;        // spawned members (peers and entry)
  std::set<std::string> running;                 // members whose process/actor has not exited
  std::set<std::string> pending;                 // spawn asked, not yet answered
  std::map<std::string, std::int64_t> pids;      // every member whose process was started
  std::set<std::string> killed;                  // sent KillMember: its end is no failure
  std::string fault;                             // the first peer that exited abnormally ("" ⇒ none)
  std::map<std::string, RestartBudget> budgets;  // per member, from its roster `restart:`
  std::set<std::string> restarting;              // died, started again, its new door not yet answering
  std::set<std::string> ended_ok;                // peers that ended as their lifecycle says (status 0)
  bool launch_failed = false;
  std::string failed_first;                      // the member whose failure stopped the launch
  std::vector<std::string> failures;             // E-RUN-045 lines
  std::int32_t exit_code = 0;
  std::string ending;
  static inline const char* name = "mur.launcher";
};

using launcher_actor = launcher_handle::stateful_base<LauncherState>;

void report(launcher_actor* self, FormationProgress p) {
  p.formation_id = self->state.formation_id;
  if (self->state.setup.reporter) self->send(self->state.setup.reporter, std::move(p));
}

const PlannedMember* planned(const LauncherState& st, const std::string& name) {
  for (const auto& m : st.setup.members)
    if (m.name == name) return &m;
  return nullptr;
}

std::shared_ptr<const FormationBundle> bundle_for(const LauncherState& st, const PlannedMember& m) {
  auto b = std::make_shared<FormationBundle>();
  b->formation_id = st.formation_id;
  b->member = m.name;
  b->launcher = st.setup.identity;
  b->verify_key = st.authority->verify_key();
  b->chain_rule = st.setup.chain_rule;
  b->limits = st.setup.limits;
  b->tls.authority = st.setup.door_authority;
  for (const auto& callee : m.callees) {
    const PlannedMember* to = planned(st, callee);
    if (to == nullptr || to->entry || callee == m.name) continue; // no credential ever names the entry member
    b->calls.push_back(FormationCall{callee, st.authority->mint(m.name, callee)});
  }
  return b;
}

// The E-RUN-045 text: each failure, then every member whose process had been started.
std::string launch_failure_text(const LauncherState& st) {
  std::string detail = "E-RUN-045: a member of the formation did not come up:";
  for (const auto& f : st.failures) detail += "\n  " + f;
  std::string stopped;
  for (const auto& m : st.setup.members) {
    auto it = st.pids.find(m.name);
    if (it == st.pids.end()) continue;
    stopped += (stopped.empty() ? "" : ", ") + m.name;
    if (it->second > 0) stopped += " (pid " + std::to_string(it->second) + ")";
  }
  detail += "\n  stopped: " + (stopped.empty() ? std::string("none") : stopped);
  return detail;
}

void finish_if_done(launcher_actor* self) {
  auto& st = self->state;
  if (st.phase != Phase::stopping || !st.running.empty() || !st.pending.empty()) return;
  st.phase = Phase::ended;
  st.authority.reset(); // drop the key: nothing can mint for this formation again
  if (st.launch_failed) {
    st.ending = launch_failure_text(st);
    FormationProgress f;
    f.event = FormationEvent::failed;
    f.member = st.failed_first;
    f.detail = st.ending;
    f.exit_code = 1;
    report(self, f);
  }
  FormationProgress p;
  p.event = FormationEvent::ended;
  p.detail = st.ending;
  p.exit_code = st.exit_code;
  report(self, p);
  self->send_exit(st.lifelines, caf::exit_reason::user_shutdown);
  self->quit();
}

// The name of the entry member while its process runs ("" otherwise).
std::string running_entry(const LauncherState& st) {
  for (const auto& m : st.setup.members)
    if (m.entry && st.running.count(m.name)) return m.name;
  return "";
}

// Every lifeline still open closes (a second time closes nothing: the holder forgets each end it
// closed); in a top-down stop, the peers'.
void close_all(launcher_actor* self) { self->send(self->state.lifelines, caf::close_atom_v); }

// Ends the formation from the top down: the entry's lifeline closes first, so its session's end
// cancels its task and that cancel follows the tree while every callee still runs (each task
// ends canceled by its caller, none sees a callee vanish and answers without it); once the entry
// is gone, or after peers_after at the latest, every other lifeline closes. Members still running
// after the grace are killed.
void stop(launcher_actor* self, std::int32_t code, std::string why) {
  auto& st = self->state;
  if (st.phase == Phase::stopping || st.phase == Phase::ended) return;
  const std::string entry = st.phase == Phase::entry_running ? running_entry(st) : "";
  st.phase = Phase::stopping;
  st.exit_code = code;
  st.ending = std::move(why);
  if (!entry.empty()) { // top down
    self->send(st.lifelines, caf::close_atom_v, entry);
    self->delayed_send(self, st.setup.peers_after, deadline_atom_v, LauncherDeadline::peers);
  } else {
    close_all(self);
  }
  self->delayed_send(self, st.setup.stop_grace, deadline_atom_v, LauncherDeadline::grace);
  finish_if_done(self);
}

// A member did not come up. The first failure stops the launch; failures of other members while
// it stops are listed too (not those of members it killed). Reported once every member is gone.
void fail_launch(launcher_actor* self, const std::string& member, const std::string& reason) {
  auto& st = self->state;
  const bool first = st.phase == Phase::starting;
  if (!first && !(st.launch_failed && st.phase == Phase::stopping && !st.killed.count(member))) return;
  const PlannedMember* m = planned(st, member);
  const std::string label = m && !m->capsule.empty() ? " (" + m->capsule + ")" : "";
  st.failures.push_back("'" + member + "'" + label + ": " + reason);
  if (!first) return;
  st.launch_failed = true;
  st.failed_first = member;
  stop(self, 1, "a member of the formation did not come up");
}

// The address line for a member: the door of each callee that is a started peer (one being
// restarted: `restarting`; one that ended as its lifecycle says: ended).
std::vector<MemberText> addresses_for(const LauncherState& st, const PlannedMember& m) {
  std::vector<MemberText> out;
  for (const auto& callee : m.callees) {
    auto it = st.started.find(callee);
    const PlannedMember* to = planned(st, callee);
    if (it == st.started.end() || !to || to->entry) continue;
    if (st.restarting.count(callee)) out.push_back({callee, restarting_url});
    else if (st.ended_ok.count(callee)) out.push_back({callee, ""});
    else if (!it->second.info.url.empty()) out.push_back({callee, it->second.info.url});
  }
  return out;
}

// Tells every running member that may call `name` where it answers now (a url, restarting_url, "").
void tell_callers(launcher_actor* self, const std::string& name, const std::string& text) {
  auto& s = self->state;
  for (const auto& m : s.setup.members)
    if (m.name != name && s.running.count(m.name) && std::find(m.callees.begin(), m.callees.end(), name) != m.callees.end())
      self->send(s.setup.spawn, SendAddresses{m.name, {MemberText{name, text}}});
}

// Records a started member and hands its lifeline end to the holder. A member that comes up
// after the formation began stopping has its lifeline closed at once; returns false then.
bool register_started(launcher_actor* self, const MemberStarted& info, const lifeline_end& end) {
  auto& s = self->state;
  s.pending.erase(info.name);
  if (info.pid > 0 || !s.pids.count(info.name)) s.pids[info.name] = info.pid;
  s.running.insert(info.name);
  s.started[info.name].info = info;
  self->send(s.lifelines, caf::put_atom_v, info.name, end);
  if (s.phase == Phase::starting) return true;
  if (s.phase == Phase::entry_running && s.restarting.count(info.name)) return true;
  self->send(s.lifelines, caf::close_atom_v, info.name);
  return false;
}

// The spawn port refused a member: its reason (which ends with the member's stderr tail).
void start_refused(launcher_actor* self, const std::string& name, const caf::error& err) {
  self->state.pending.erase(name);
  const auto stated = spawn_refusal_reason(err); // the port's own reason
  fail_launch(self, name, stated ? *stated : "could not be started: " + self->system().render(err));
  finish_if_done(self);
}

// How a member's process ended, in words: "exited with status N" or "was killed by signal N (SIGX)".
std::string how_it_ended(std::int32_t code) {
  if (code > 128 && code < 128 + 65) {
    const int sig = code - 128;
    const char* abbrev = sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "exited with status " + std::to_string(code);
}

// "restarting it (restart 1 of 3 within 60 s)" — the budget as it stands after the grant.
std::string restart_words(LauncherState& st, const std::string& name) {
  const RestartBudget& b = st.budgets[name];
  return "restarting it (restart " + std::to_string(b.in_window()) + " of " + std::to_string(b.policy().max) +
         " within " + std::to_string(b.policy().within.count()) + " s)";
}

// " (its restarts are spent: 3 within 60 s)" for a member whose roster grants restarts, else "".
std::string spent_words(LauncherState& st, const std::string& name) {
  const RestartPolicy& p = st.budgets[name].policy();
  if (p.max <= 0) return {};
  return " (its restarts are spent: " + std::to_string(p.max) + " within " + std::to_string(p.within.count()) + " s)";
}

// The first fault: the formation ends with member_fault_exit_code once the calls in flight had
// fault_settle to name the dead member (or when the entry ends, if sooner).
void fault(launcher_actor* self, const std::string& what) {
  auto& s = self->state;
  if (!s.fault.empty()) return;
  s.fault = what;
  self->delayed_send(self, s.setup.fault_settle, deadline_atom_v, LauncherDeadline::fault);
}

// A restart did not come up: the member's budget cannot help, so it is a fault like its death.
void restart_failed(launcher_actor* self, const std::string& name, const std::string& reason) {
  auto& s = self->state;
  if (!s.restarting.erase(name) || s.phase != Phase::entry_running) return;
  const std::string what = "member '" + name + "' died and its restart did not come up: " + reason;
  report(self, FormationProgress{FormationEvent::member_exited, "", name, "", "", 0, what, 1});
  fault(self, what);
}

void start_entry(launcher_actor* self);
void probe(launcher_actor* self, const std::string& name);

// Starts a member that died again, under its name, with a fresh bundle (every token minted
// anew); its callers wait for its new door meanwhile. Probed as at launch.
void restart_peer(launcher_actor* self, const std::string& name) {
  auto& s = self->state;
  const PlannedMember* m = planned(s, name);
  s.restarting.insert(name);
  tell_callers(self, name, restarting_url);
  s.started[name] = Started{};
  s.started[name].spawned = self->clock().now();
  s.pending.insert(name);
  SpawnMember sm{name, s.formation_id, false, "", {}};
  self->request(s.setup.spawn, s.setup.ready_deadline, sm, BundleRef{bundle_for(s, *m)})
    .then(
      [=](const MemberStarted& info, const lifeline_end& end) {
        if (register_started(self, info, end)) probe(self, info.name);
        else finish_if_done(self);
      },
      [=](const caf::error& err) {
        self->state.pending.erase(name);
        const auto stated = spawn_refusal_reason(err);
        restart_failed(self, name, stated ? *stated : "it could not be started: " + self->system().render(err));
        finish_if_done(self);
      });
}

// A restarted member's door answers as its new session: said, and every address that names it
// or that it needs is sent.
void restarted_ready(launcher_actor* self, const std::string& name) {
  auto& s = self->state;
  s.restarting.erase(name);
  const auto& info = s.started[name].info;
  const RestartBudget& b = s.budgets[name];
  report(self, FormationProgress{FormationEvent::restarted, "", name, info.session_id, info.url, info.pid,
                                 "member '" + name + "' restarted as " + info.session_id + " (pid " + std::to_string(info.pid) +
                                   "; restart " + std::to_string(b.in_window()) + " of " + std::to_string(b.policy().max) +
                                   " within " + std::to_string(b.policy().within.count()) + " s)",
                                 b.granted()});
  const PlannedMember* m = planned(s, name);
  if (!m->callees.empty()) self->send(s.setup.spawn, SendAddresses{name, addresses_for(s, *m)});
  tell_callers(self, name, info.url);
}

// A member died while the formation ran: reported at once — `who`, its pid, how it ended, the limit
// that explains it, its stderr tail — and, when `may_restart`, granted a restart from its budget if
// one is left (else the report says the budget is spent). `what` is the ending's words.
struct Death {
  bool restart = false;
  std::string what;
};
Death report_death(launcher_actor* self, const MemberExited& ex, const std::string& who, bool may_restart) {
  auto& s = self->state;
  const auto pid_it = s.pids.find(ex.name);
  const std::int64_t pid = pid_it != s.pids.end() ? pid_it->second : 0;
  Death d;
  d.restart = may_restart && s.budgets[ex.name].take(self->clock().now());
  d.what = who + (pid > 0 ? " (pid " + std::to_string(pid) + ")" : "") + " " + how_it_ended(ex.exit_code) +
           " while the formation ran" + (ex.limit.empty() ? "" : " (" + ex.limit + ")") +
           (may_restart && !d.restart ? spent_words(s, ex.name) : "");
  const std::string tail = ex.stderr_tail.empty() ? " (its stderr held nothing)" : "; its stderr ended with:" + ex.stderr_tail;
  const auto& info = s.started[ex.name].info;
  report(self, FormationProgress{FormationEvent::member_exited, "", ex.name, info.session_id, info.url, pid,
                                 d.what + tail + (d.restart ? "\n  " + restart_words(s, ex.name) : ""), ex.exit_code});
  return d;
}

// A peer ended while the formation served. Status 0 is the end its lifecycle gives it (after_task:
// exit): no fault; every member that may call it is told, so its calls name a member that has
// ended. Anything else is a fault: recorded (member, pid, status or signal, stderr tail) and
// reported at once; with restarts left in its budget it is started again (restart_peer), else the
// formation ends (fault).
void peer_exited(launcher_actor* self, const MemberExited& ex) {
  auto& s = self->state;
  const auto pid_it = s.pids.find(ex.name);
  const std::string pid = pid_it != s.pids.end() && pid_it->second > 0 ? " (pid " + std::to_string(pid_it->second) + ")" : "";
  const auto& info = s.started[ex.name].info;
  if (ex.exit_code == 0) {
    report(self, FormationProgress{FormationEvent::member_ended, "", ex.name, info.session_id, info.url,
                                   pid_it != s.pids.end() ? pid_it->second : 0,
                                   "member '" + ex.name + "'" + pid + " ended as its lifecycle says (status 0); "
                                   "calls to it now answer that it has ended", 0});
    s.ended_ok.insert(ex.name);
    tell_callers(self, ex.name, "");
    return;
  }
  const Death d = report_death(self, ex, "member '" + ex.name + "'", s.fault.empty());
  if (d.restart) return restart_peer(self, ex.name);
  fault(self, d.what);
}

// The entry ended while the formation ran. With a launch task its code is the formation's; it is
// named (like a peer) when a signal ended it or, serving, when it exited at all — in serve mode
// with restarts left it is started again instead.
void entry_exited(launcher_actor* self, const MemberExited& ex) {
  auto& s = self->state;
  const bool serving = s.setup.task.empty();
  if (ex.exit_code != 0 && s.fault.empty() && (serving || ex.exit_code > 128)) {
    const Death d = report_death(self, ex, "the entry member '" + ex.name + "'", serving);
    if (!d.restart) return stop(self, ex.exit_code, d.what);
    s.restarting.insert(ex.name);
    s.started[ex.name] = Started{};
    return start_entry(self);
  }
  if (s.fault.empty()) stop(self, ex.exit_code, "the entry member ended");
  else stop(self, member_fault_exit_code, "the entry member ended after " + s.fault);
}

void start_entry(launcher_actor* self) {
  auto& st = self->state;
  const PlannedMember* entry = nullptr;
  for (const auto& m : st.setup.members)
    if (m.entry) entry = &m;
  SpawnMember sm{entry->name, st.formation_id, true, st.setup.task, addresses_for(st, *entry)};
  st.started[entry->name].spawned = self->clock().now();
  st.pending.insert(entry->name);
  self->request(st.setup.spawn, caf::infinite, sm, BundleRef{bundle_for(st, *entry)})
    .then(
      [=](const MemberStarted& info, const lifeline_end& end) {
        if (!register_started(self, info, end)) return finish_if_done(self);
        auto& s = self->state;
        s.started[info.name].ready = true;
        if (s.restarting.count(info.name)) return restarted_ready(self, info.name);
        s.phase = Phase::entry_running;
        report(self, FormationProgress{FormationEvent::entry, "", info.name, info.session_id, info.url, info.pid, "", 0});
      },
      [=](const caf::error& err) {
        if (self->state.restarting.count(sm.name)) {
          self->state.pending.erase(sm.name);
          restart_failed(self, sm.name, [&] {
            const auto stated = spawn_refusal_reason(err);
            return stated ? *stated : "it could not be started: " + self->system().render(err);
          }());
          return finish_if_done(self);
        }
        start_refused(self, sm.name, err);
      });
}

void peers_ready(launcher_actor* self) {
  auto& st = self->state;
  for (const auto& m : st.setup.members)
    if (!m.entry && !m.callees.empty()) self->send(st.setup.spawn, SendAddresses{m.name, addresses_for(st, m)});
  start_entry(self);
}

void probe(launcher_actor* self, const std::string& name) {
  auto& st = self->state;
  const bool again = st.phase == Phase::entry_running && st.restarting.count(name);
  if (st.phase != Phase::starting && !again) return;
  const Started& s = st.started[name];
  if (self->clock().now() - s.spawned > st.setup.ready_deadline) {
    const std::string why = "its door did not answer as session " + s.info.session_id + " in time";
    if (again) return restart_failed(self, name, why);
    fail_launch(self, name, why);
    return;
  }
  DoorRequest card;
  card.method = DoorMethod::agent_card;
  self->request(st.setup.network, std::chrono::seconds(2), DoorCallTo{s.info.url}, Bearer{}, card)
    .then(
      [=](const DoorReply& r) {
        auto& st2 = self->state;
        auto& peer = st2.started[name];
        if (r.session_id == peer.info.session_id) {
          if (peer.ready) return; // an earlier start's probe (a restart came between)
          peer.ready = true;
          if (st2.restarting.count(name)) return restarted_ready(self, name);
          report(self, FormationProgress{FormationEvent::ready, "", name, peer.info.session_id, peer.info.url, peer.info.pid, "", 0});
          for (const auto& m : st2.setup.members)
            if (!m.entry && !st2.started[m.name].ready) return;
          if (st2.phase == Phase::starting) peers_ready(self);
          return;
        }
        self->delayed_send(self, st2.setup.probe_interval, retry_atom_v, name);
      },
      [=](const caf::error&) { self->delayed_send(self, self->state.setup.probe_interval, retry_atom_v, name); });
}

launcher_handle::behavior_type launcher(launcher_actor* self, LauncherSetup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  st.formation_id = st.setup.formation_id.empty() ? IdClock(st.setup.ids, self->clock(), "launcher").mint(ids::formation)
                                                  : st.setup.formation_id;
  st.authority = std::make_unique<FormationAuthority>(st.formation_id);
  st.lifelines = spawn_lifelines(self->system());
  for (const auto& m : st.setup.members) st.budgets.emplace(m.name, RestartBudget{m.restart});
  self->link_to(st.lifelines); // if this actor is killed, every lifeline closes with it
  report(self, FormationProgress{FormationEvent::formation, "", "", "", "", 0, "", 0});

  bool any_peer = false;
  for (const auto& m : st.setup.members) {
    if (m.entry) continue;
    any_peer = true;
    st.started[m.name].spawned = self->clock().now();
    st.pending.insert(m.name);
    SpawnMember sm{m.name, st.formation_id, false, "", {}};
    self->request(st.setup.spawn, st.setup.ready_deadline, sm, BundleRef{bundle_for(st, m)})
      .then(
        [=](const MemberStarted& info, const lifeline_end& end) {
          if (register_started(self, info, end)) probe(self, info.name);
          else finish_if_done(self);
        },
        [=](const caf::error& err) { start_refused(self, sm.name, err); });
  }
  if (!any_peer) start_entry(self);
  if (st.setup.deadline.count() > 0)
    self->delayed_send(self, st.setup.deadline, deadline_atom_v, LauncherDeadline::formation);

  return {
    [=](caf::get_atom) -> std::string { return self->state.formation_id; },
    [=](retry_atom, const std::string& name) { probe(self, name); },
    [=](spawned_atom, const std::string& name, std::int64_t pid) { self->state.pids[name] = pid; },
    [=](const MemberExited& ex) {
      auto& s = self->state;
      s.running.erase(ex.name);
      const PlannedMember* m = planned(s, ex.name);
      if (s.phase == Phase::starting && m && !m->entry) {
        fail_launch(self, ex.name, "exited (code " + std::to_string(ex.exit_code) + ") before its door answered" + ex.stderr_tail);
      } else if (m && m->entry && s.phase == Phase::entry_running) {
        entry_exited(self, ex);
      } else if (m && !m->entry && s.phase == Phase::entry_running) {
        peer_exited(self, ex);
      }
      if (m && m->entry && s.phase == Phase::stopping) close_all(self); // the tree is wound down

      finish_if_done(self);
    },
    [=](sigterm_atom, std::int32_t signal) {
      stop(self, 128 + signal, "signal " + std::to_string(signal) + ": the formation was stopped");
    },
    [=](deadline_atom, LauncherDeadline which) {
      auto& s = self->state;
      if (which == LauncherDeadline::formation) {
        stop(self, 124, "the formation's deadline passed");
      } else if (which == LauncherDeadline::fault) {
        stop(self, member_fault_exit_code, s.fault);
      } else if (which == LauncherDeadline::peers && s.phase == Phase::stopping) {
        close_all(self);
      } else if (which == LauncherDeadline::grace && s.phase == Phase::stopping) {
        for (const auto* names : {&s.running, &s.pending})
          for (const auto& name : *names) {
            s.killed.insert(name);
            self->send(s.setup.spawn, KillMember{name});
          }
      }
    },
  };
}

} // namespace

launcher_handle spawn_launcher(caf::actor_system& sys, LauncherSetup setup) {
  return sys.spawn(launcher, std::move(setup));
}

} // namespace mur
