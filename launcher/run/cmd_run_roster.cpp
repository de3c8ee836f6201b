#include "launcher/run/cmd_run_roster.hpp"
#include "member/otel_export.hpp"
#include "messages/vocabulary/message_types.hpp"
#include "messages/wire/register_messages.hpp"

#include "actors/atoms.hpp"
#include "actors/host_route.hpp"
#include "actors/launcher.hpp"
#include "actors/spawn_refusal.hpp"
#include "capsule/murmur_home.hpp"
#include "http/curl_pool.hpp"
#include "http/door_network.hpp"
#include "launcher/admission/admission.hpp"
#include "launcher/admission/env_needs.hpp"
#include "launcher/admission/template_check.hpp"
#include "launcher/base/cli_words.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "launcher/base/launcher_record.hpp"
#include "launcher/base/project_path.hpp"
#include "launcher/run/host_reach.hpp"
#include "launcher/run/member_console.hpp"
#include "launcher/run/member_process.hpp"
#include "launcher/run/process_spawner.hpp"
#include "launcher/traces/trace_follow.hpp"
#include "launcher/view/view_command.hpp"
#include "member/running_record.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/duration.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/formation_messages.hpp"
#include "os/live_slots.hpp"
#include "os/process_spawn.hpp"
#include "os/process_start.hpp"
#include "os/signal_watch.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace mur {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string canonical(const std::string& dir) {
  char buf[PATH_MAX];
  if (::realpath(dir.c_str(), buf) == nullptr) return dir;
  return buf;
}

std::string signal_name(int n) {
  switch (n) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(n);
  }
}

std::string seconds_since(Clock::time_point t0) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << std::chrono::duration<double>(Clock::now() - t0).count() << "s";
  return s.str();
}

// The members' environment: ours, without anything that would make them think they are nested.
std::vector<std::string> member_environment() {
  auto env = current_environment();
  std::vector<std::string> out;
  for (auto& e : env)
    if (e.rfind("MURMUR_FORMATION_", 0) != 0) out.push_back(std::move(e));
  return out;
}

void remove_gone_records(const std::string& formation_id) {
  for (const auto& r : list_running_records())
    if (r.formation_id == formation_id && !record_is_live(r)) remove_running_record(r.session_id);
}

struct Peer {
  std::string name;
  std::int64_t pid = 0;
  std::string session_id, url, workdir;
};

// Progress on stderr (human) or the formation line on stdout (--json); the answer comes from
// the entry member through the console.
class Reporter {
public:
  Reporter(const Admission& a, const RunRosterOptions& o, MemberConsole& console)
    : admission_(a), options_(o), console_(console), t0_(Clock::now()) {}

  void on(const FormationProgress& p) {
    frm_ = p.formation_id;
    if (p.event == FormationEvent::formation) {
      if (!options_.json) console_.note("formation " + p.formation_id + ": starting " + std::to_string(admission_.members.size()) + " member(s)");
    } else if (p.event == FormationEvent::ready) {
      peers_[p.member] = Peer{p.member, p.pid, p.session_id, p.url, formation_dir(p.formation_id) + "/" + p.member};
      if (!options_.json)
        console_.note("ready  " + p.member + "  pid " + std::to_string(p.pid) + "  " + p.session_id + "  " + p.url + "  (" + seconds_since(t0_) + ")");
    } else if (p.event == FormationEvent::entry) {
      entry_started_ = true;
      if (!options_.json) {
        console_.note("entry  " + p.member + "  pid " + std::to_string(p.pid) + "  " + p.session_id + "  " + p.url + "  (" + seconds_since(t0_) + ")");
        if (options_.task.empty())
          console_.note("the entry member " + p.member + " takes tasks at " + p.url + "; send one: mur send " + p.formation_id +
                        " \"…\"; stop the formation: mur stop " + p.formation_id + " (or Ctrl-C)");
        console_.open_entry("");
      } else {
        json peers = json::array();
        for (const auto& m : admission_.members) {
          auto it = peers_.find(m.declared.name);
          if (it == peers_.end()) continue;
          peers.push_back({{"name", it->second.name}, {"pid", it->second.pid}, {"session_id", it->second.session_id},
                           {"url", it->second.url}, {"workdir", it->second.workdir}});
        }
        console_.open_entry(json{{"entry", p.member}, {"formation_id", p.formation_id}, {"peers", peers}}.dump());
      }
    } else if (p.event == FormationEvent::member_exited || p.event == FormationEvent::member_ended ||
               p.event == FormationEvent::restarted) {
      console_.note(p.detail); // on stderr in both modes: the operator must see a member go
    } else if (p.event == FormationEvent::failed) {
      failure_ = p.detail;
    } else if (p.event == FormationEvent::ended) {
      ended_ = true;
      code_ = p.exit_code;
      ending_ = p.detail;
    }
  }

  void finish(int caught_signal) {
    console_.open_entry("");
    if (caught_signal != 0) {
      console_.note(signal_name(caught_signal) + ": the formation was stopped");
    } else if (!failure_.empty() && code_ == 1 && !entry_started_) {
      std::string text = failure_;
      const std::string prefix = "E-RUN-045: ";
      if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
      print_failure(Failure("E-RUN-045", text, "read the member's stderr above; check the roster with mur doctor"),
                    options_.json, std::cout, std::cerr);
    } else if (code_ == 124) {
      console_.note("the formation's deadline passed: the formation was stopped");
    } else if (ending_.find("while the formation ran") != std::string::npos) { // a peer's fault, or the entry's death
      console_.note("the formation was stopped (exit " + std::to_string(code_) + "): " + ending_);
    } else if (options_.verbose) {
      console_.note("formation " + frm_ + " ended: " + ending_ + " (exit " + std::to_string(code_) + ")");
    }
  }

  bool ended() const { return ended_; }
  int code() const { return code_; }

private:
  const Admission& admission_;
  const RunRosterOptions& options_;
  MemberConsole& console_;
  Clock::time_point t0_;
  std::string frm_;
  std::map<std::string, Peer> peers_;
  bool entry_started_ = false;
  bool ended_ = false;
  int code_ = 1;
  std::string failure_, ending_;
};

// Checks 1–12 and the templates, as mur doctor runs them; members named by path installed from
// their folders when they changed (a line each on stderr); the warnings on stderr.
Admission admit_for_run(const std::string& roster_arg) {
  check_roster_path(roster_arg);
  Admission admission = admit_roster_at(roster_arg);
  for (const auto& p : admission.installed) // members named by path whose folders changed
    if (const auto line = install_line(p); !line.empty()) std::cerr << "[mur run] " << line << "\n";
  check_hosts(admission, [](const std::string&, bool) {}); // each host reached, its capsules there as admitted
  for (const auto& am : admission.members) // as mur doctor checks them (E-MAN-004)
    check_templates(am.capsule.manifest, "member '" + am.declared.name + "' (" + am.declared.capsule + "@" +
                                           am.declared.version + ")");
  for (const auto& w : admission.warnings)
    std::cerr << "[mur run] warning[" << w.code << "]: " << w.message << (w.fix.empty() ? "" : " — Fix: " + w.fix) << "\n";
  return admission;
}

// What the launcher actor plans and the process spawner starts, one entry per member.
struct LaunchPlan {
  std::vector<PlannedMember> planned;
  std::vector<MemberLaunch> launches;
  bool any_peer = false;
  bool any_delegates = false; // a member's capsule may delegate: the formation needs its live ledger
  ChainRule chain_rule; // the roster's allow_cycles and max_depth, for every bundle
  SpendLimits limits;   // the roster's spending limits, for every bundle
  LiveLimit live;       // the roster's max_live and its members, for the live ledger
};

LaunchPlan plan_launch(const Admission& admission) {
  LaunchPlan plan;
  // What each member reads of the environment (its delegates' included), and all of it together.
  const StoreRoots stores = StoreRoots::for_project(admission.roster.project_dir);
  std::vector<std::set<std::string>> needs;
  std::set<std::string> everyone;
  for (const auto& m : admission.members) {
    needs.push_back(env_needed(m.capsule.manifest, stores));
    everyone.insert(needs.back().begin(), needs.back().end());
  }
  for (const auto& m : admission.members) {
    plan.planned.push_back(PlannedMember{m.declared.name, m.declared.entry, m.callees,
                                         m.declared.capsule + "@" + m.declared.version, m.declared.restart});
    plan.launches.push_back(MemberLaunch{m.declared.name, m.declared.entry, m.declared.capsule, m.declared.version,
                                         m.capsule.stored.sha256, {}});
    const auto& mine = needs[plan.launches.size() - 1];
    for (const auto& name : everyone) // another member's key is not handed to this one
      if (!mine.count(name)) plan.launches.back().withheld.push_back(name);
    plan.any_peer = plan.any_peer || !m.declared.entry;
    plan.any_delegates = plan.any_delegates || !m.capsule.manifest.spawn_allow.empty();
  }
  plan.chain_rule = admission.roster.chain_rule;
  plan.limits = admission.roster.spend;
  plan.live = LiveLimit{admission.roster.max_live, static_cast<int>(admission.members.size())};
  return plan;
}

// The launcher's record of this formation (what mur ps and mur stop read) for as long as the run
// lasts, removed also when a failure ends it early; with peers or delegating members, the
// formation directory, and with delegating members its live ledger.
class LaunchRecord {
public:
  LaunchRecord(const std::string& formation_id, const std::string& project, const std::string& entry,
               const std::string& me_start, const LaunchPlan& plan)
    : id_(formation_id) {
    LauncherRecord& rec = rec_;
    rec.formation_id = formation_id;
    rec.pid = ::getpid();
    rec.process_start = me_start;
    rec.project_dir = project;
    rec.entry = entry;
    rec.started_at = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
    write_launcher_record(rec);
    if (!plan.any_peer && !plan.any_delegates) return;
    try { // without it the peers' directories cannot be made either: each fails, and says why
      make_formation_dir(formation_id, project, ::getpid(), me_start);
    } catch (const Failure& f) {
      std::cerr << "[mur run] warning: " << f.what() << "\n";
    }
    if (!plan.any_delegates) return;
    try { // without it every delegation is refused, naming why (the ledger fails closed)
      make_live_ledger(formation_live_dir(formation_id), plan.live);
    } catch (const std::runtime_error& e) {
      std::cerr << "[mur run] warning: " << e.what() << "; no member can delegate\n";
    }
  }
  ~LaunchRecord() { remove_launcher_record(id_); }
  LaunchRecord(const LaunchRecord&) = delete;
  LaunchRecord& operator=(const LaunchRecord&) = delete;

  // A member on another host became ready (again, after a restart): `mur ps` lists it from here.
  void add_remote(RemoteMember m) {
    auto& list = rec_.remote;
    list.erase(std::remove_if(list.begin(), list.end(), [&](const RemoteMember& r) { return r.member == m.member; }),
               list.end());
    list.push_back(std::move(m));
    write_launcher_record(rec_);
  }
  // A member was restarted (its `restarted` progress): `mur ps` shows how often.
  void note_restart(const std::string& member, int times) {
    rec_.restarts[member] = times;
    write_launcher_record(rec_);
  }

private:
  std::string id_;
  LauncherRecord rec_;
};

// -v: the members' trace files read every 100 ms, each task, call and answer a line on stderr;
// one more read after the members have ended, so their traces are whole.
class VerboseFollow {
public:
  VerboseFollow(bool on, std::shared_ptr<MemberConsole> console, const std::string& formation_id,
                const std::string& project)
    : on_(on) {
    if (!on) return;
    thread_ = std::thread([this, console, formation_id, project] {
      TraceFollower follower(formation_id, project);
      for (bool last = false; !last;) {
        last = !on_.load();
        for (const auto& line : follower.poll(last)) console->note(line);
        if (!last) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  void stop() {
    on_ = false;
    if (thread_.joinable()) thread_.join();
  }
  ~VerboseFollow() { stop(); }

private:
  std::atomic<bool> on_;
  std::thread thread_;
};

// One formation's run as the actors see it.
struct FormationRun {
  const Admission& admission;
  const RunRosterOptions& options;
  std::string formation_id, project, me_start;
  LaunchPlan plan;
  std::shared_ptr<MemberConsole> console;
  std::shared_ptr<MemberProcesses> processes;
  std::function<void(const FormationProgress&)> on_progress; // besides the reporter
};

// The launcher actor and its ports, until the formation ends: each FormationProgress goes to the
// reporter; a signal is caught once and handed to the launcher; every process is gone after.
void run_formation(const FormationRun& run, Reporter& reporter, std::atomic<int>& caught) {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  register_message_types(cfg);
  add_spawn_error_category(cfg);
  const auto placed = member_hosts(run.admission);
  const std::string trust = murmur_home() + "/launcher/hosts-" + run.formation_id + ".pem";
  if (!placed.empty()) speak_tls_to_hosts(cfg, run.admission, trust);
  const struct RemoveTrust { // the hosts' certificates, for this formation's connections only
    std::string path;
    ~RemoveTrust() { if (!path.empty()) ::unlink(path.c_str()); }
  } remove_trust{placed.empty() ? std::string() : trust};
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};

  // Members on other hosts: their doors speak TLS with certificates from an authority made for
  // this formation, in memory; its key is gone once they are issued (docs/hosts.md §Doors across hosts).
  const DoorCertificates doors = placed.empty() ? DoorCertificates{} : issue_door_certificates(run.admission);
  auto pool = std::make_shared<CurlPool>();
  auto network = spawn_door_network(sys, pool, doors.authority);
  ProcessSpawnerSetup ps;
  ps.program = self_binary();
  ps.project_dir = run.project;
  ps.members = run.plan.launches;
  ps.env = member_environment();
  // Where the formation's own state lives (the entry's sessions, the project store): a
  // member's agent program is kept out of <project>/.murmur (member/model_start.cpp).
  set_env_entry(ps.env, "MURMUR_PROJECT_DIR", run.project);
  ps.console = run.console;
  ps.processes = run.processes;
  spawn_port spawner = spawn_process_spawner(sys, ps);
  OpenedHosts hosts;
  if (!placed.empty()) { // members on other hosts: one route, a formation opened on each host
    auto route = spawn_host_route(sys, HostRouteSetup{spawner, placed, run.formation_id, std::chrono::milliseconds(1000), 3,
                                                      doors.members});
    spawner = spawn_port{route};
    try {
      hosts = open_hosts(sys, run.admission, run.formation_id, caf::actor_cast<caf::actor>(route), std::chrono::seconds(10));
    } catch (const Failure&) { // nothing may be left running, or the system would wait for it
      self->send_exit(route, caf::exit_reason::user_shutdown); // and with it every host formation opened
      self->send_exit(network, caf::exit_reason::user_shutdown);
      throw;
    }
  }

  LauncherSetup ls;
  ls.members = run.plan.planned;
  ls.chain_rule = run.plan.chain_rule;
  ls.door_authority = doors.authority;
  ls.limits = run.plan.limits;
  ls.formation_id = run.formation_id;
  ls.task = run.options.task; // its text: the command line read any @FILE
  if (!run.me_start.empty()) ls.identity = LauncherIdentity{::getpid(), run.me_start};
  ls.deadline = run.options.deadline;
  ls.spawn = spawner;
  ls.network = network;
  ls.reporter = caf::actor_cast<progress_port>(self); // the receive loop below handles FormationProgress
  auto launcher = spawn_launcher(sys, ls);
  self->monitor(launcher);

  // The hosts' traces, mirrored here every second while the formation runs, so the followers
  // (-v, trace show --follow, the view page), which poll these files, see remote members too.
  struct Mirror {
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    std::thread thread;
  } mirror;
  if (!hosts.agents.empty())
    mirror.thread = std::thread([&] {
      std::unique_lock<std::mutex> lock(mirror.mu);
      while (!mirror.cv.wait_for(lock, std::chrono::seconds(1), [&] { return mirror.stop; })) {
        lock.unlock();
        bring_back_traces(sys, run.admission, hosts, run.formation_id, std::chrono::seconds(2));
        lock.lock();
      }
    });
  SignalWatch signals([launcher, &caught](int sig) {
    int none = 0;
    caught.compare_exchange_strong(none, sig);
    caf::anon_send(launcher, sigterm_atom_v, static_cast<std::int32_t>(sig));
  });
  bool down = false;
  self->receive_while([&] { return !reporter.ended() && !down; })(
    [&](const FormationProgress& p) {
      reporter.on(p);
      if (run.on_progress) run.on_progress(p);
    },
    [&](const caf::down_msg&) { down = true; });
  signals.stop();

  if (mirror.thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mirror.mu);
      mirror.stop = true;
    }
    mirror.cv.notify_all();
    mirror.thread.join();
  }
  // Every member has ended (or its host was lost): the hosts' traces come home whole.
  for (const auto& note : bring_back_traces(sys, run.admission, hosts, run.formation_id, std::chrono::seconds(5)))
    run.console->note(note);
  self->send_exit(spawner, caf::exit_reason::user_shutdown); // closes any lifeline still open
  run.processes->kill_all(); // nothing should be left; if something is, it goes now
  run.processes->join_all();
  self->send_exit(network, caf::exit_reason::user_shutdown);
}

} // namespace

int cmd_run_roster(const RunRosterOptions& o) {
  if (const char* id = std::getenv(FORMATION_ID_ENV); id != nullptr && *id != '\0')
    throw Failure("E-RUN-046", "mur run --roster cannot run inside a formation member",
                  "launch the formation from a shell, not from a member's session");
  block_session_signals(); // before any thread starts

  const Admission admission = admit_for_run(o.roster.empty() ? "." : o.roster);
  print_otel_warnings(); // once for the formation: its members inherit the OTEL_* variables and say nothing
  FormationRun run{admission, o, ids::mint(ids::formation), canonical(admission.roster.project_dir), process_start_of(::getpid()),
                   plan_launch(admission), std::make_shared<MemberConsole>(o.json),
                   std::make_shared<MemberProcesses>()};
  // --ui: the live view listens before anything starts (a port it cannot serve refuses the launch).
  std::unique_ptr<FormationView> view;
  if (o.ui) {
    std::vector<std::string> names;
    for (const auto& m : admission.members) names.push_back(m.declared.name);
    view = std::make_unique<FormationView>(run.formation_id, run.project, names, static_cast<std::uint16_t>(o.ui_port));
  }
  LaunchRecord record(run.formation_id, run.project, admission.entry_member().declared.name, run.me_start, run.plan);
  run.on_progress = [&record, placed = member_hosts(admission), &admission](const FormationProgress& p) {
    if (p.event == FormationEvent::restarted) record.note_restart(p.member, p.exit_code);
    const auto host = placed.find(p.member);
    if ((p.event != FormationEvent::ready && p.event != FormationEvent::restarted) || host == placed.end()) return;
    std::string capsule;
    for (const auto& m : admission.members)
      if (m.declared.name == p.member) capsule = m.declared.capsule + "@" + m.declared.version;
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    record.add_remote(RemoteMember{p.member, host->second, p.session_id, p.url, p.pid, capsule, now.count()});
  };
  Reporter reporter(admission, o, *run.console);
  std::atomic<int> caught{0};
  VerboseFollow follow(o.verbose, run.console, run.formation_id, run.project);
  run_formation(run, reporter, caught);
  follow.stop();
  // With --task the view outlives the formation until Ctrl-C (its page shows how it ended); a
  // signal that stopped the formation ends the view with it.
  const bool keep_view = view && !o.task.empty() && caught.load() == 0;
  if (view && !keep_view) view->finish(); // the last state, once the members' traces are whole
  // A signal the launcher caught decides the code, even if the entry (in our process group, so
  // it saw a terminal's ^C too) ended first.
  const int sig = caught.load();
  reporter.finish(sig);
  remove_gone_records(run.formation_id);
  if (const auto& retain = admission.entry_member().capsule.manifest.retain)
    for (const auto& line : apply_retention(*retain, run.formation_id, run.project)) run.console->note(line);
  if (keep_view) view->serve_until_signal();
  return sig != 0 ? 128 + sig : reporter.code();
}

} // namespace mur
