// host_agent.cpp — see host_agent.hpp.
#include "launcher/run/host_agent.hpp"

#include "capsule/capsule_names.hpp"
#include "capsule/capsule_store.hpp"
#include "actors/host_formation.hpp"
#include "actors/spawn_refusal.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "launcher/run/host_uploads.hpp"
#include "launcher/run/member_process.hpp"
#include "launcher/run/process_spawner.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/credentials/formation_token.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/process_start.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "messages/wire/register_messages.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <thread>
#include <memory>
#include <variant>

namespace mur {

HostCapsuleState check_installed(const std::string& store, const HostCapsule& asked) {
  HostCapsuleState s{asked.name, asked.version, false, ""};
  // A name or version that is not one never reaches the file system (no path of the host's is probed).
  if (auto p = names::capsule_name_problem(asked.name)) return s.why = "'" + asked.name + "' " + *p, s;
  if (auto p = names::version_problem(asked.version)) return s.why = "version '" + asked.version + "': " + *p, s;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(store + "/" + asked.name + "/" + asked.version, ec))) {
    s.why = "not installed there at this version (its global store: " + store + ")";
    return s;
  }
  const auto found = resolve_capsule(StoreRoots{store, store}, asked.name, asked.version);
  if (const auto* miss = std::get_if<ResolveMiss>(&found)) {
    s.why = miss->why;
    return s;
  }
  const auto& got = std::get<ResolvedCapsule>(found).stored;
  if (!asked.sha256.empty() && got.sha256 != asked.sha256) {
    s.why = "it is installed there with other bytes (sha256 " + got.sha256.substr(0, 12) + "…, the launcher's " +
            asked.sha256.substr(0, 12) + "…)";
    return s;
  }
  s.installed = true;
  return s;
}

void speak_tls(caf::actor_system_config& cfg, const std::string& certificate, const std::string& key,
               const std::string& trusted) {
  register_message_types(cfg);
  cfg.load<caf::io::middleman>();
  cfg.load<caf::openssl::manager>();
  cfg.set("scheduler.max-threads", 1);
  cfg.openssl_certificate = certificate;
  cfg.openssl_key = key;
  cfg.openssl_cafile = trusted;
}

std::vector<HostTrace> formation_traces_here(const std::string& formation_id) {
  namespace fs = std::filesystem;
  std::vector<HostTrace> out;
  if (!ids::is_valid(formation_id, ids::formation)) return out;
  std::size_t total = 0;
  std::error_code ec;
  // Nothing is followed: a member could leave a link where its trace or directory should be.
  auto plain_dir = [](const fs::path& p) {
    std::error_code e;
    return fs::symlink_status(p, e).type() == fs::file_type::directory;
  };
  for (const auto& m : fs::directory_iterator(formation_dir(formation_id), ec)) {
    const std::string member = m.path().filename().string();
    if (!plain_dir(m.path()) || !is_member_name(member) || !plain_dir(m.path() / ".murmur")) continue;
    std::error_code ec2;
    for (const auto& s : fs::directory_iterator(m.path() / ".murmur", ec2)) {
      const std::string session = s.path().filename().string();
      if (!ids::is_valid(session, ids::session) || !plain_dir(s.path())) continue;
      const int fd = ::open((s.path() / "trace.jsonl").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) continue;
      struct stat st {};
      std::string text;
      if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= host_traces_limit) {
        char buf[65536];
        for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
      }
      ::close(fd);
      if (text.empty()) continue;
      if (total + text.size() > host_traces_limit) continue;
      total += text.size();
      out.push_back(HostTrace{member, session, std::move(text)});
    }
  }
  return out;
}

namespace {

struct AgentState {
  HostAgentSetup setup;
  std::unique_ptr<HostUploads> uploads;
  std::set<std::string> open;                     // formations with a host formation here
  std::set<std::string> ever;                     // every formation opened here: the only ones whose traces it gives
  std::map<caf::actor_addr, std::string> watching; // each host formation → its formation id
  // Each open formation's host formation and members' processes; shared with the functor that
  // ends them when the agent ends (CAF destroys an actor's state before its functors run).
  struct Opened {
    std::map<std::string, caf::actor> formations;
    std::map<std::string, std::shared_ptr<MemberProcesses>> processes;
  };
  std::shared_ptr<Opened> opened = std::make_shared<Opened>();
  static inline const char* name = "mur.host_agent";
};

// A HostOpen taken: its formation directory, a process spawner for its members, a host
// formation watching the launcher. Or the reason it was refused.
caf::result<caf::actor> open_formation(host_door::stateful_pointer<AgentState> self, const HostOpen& open) {
  auto& st = self->state;
  const HostRunSetup& run = st.setup.run;
  if (!ids::is_valid(open.formation_id, ids::formation)) return spawn_refusal("'" + open.formation_id + "' is not a formation id");
  if (st.open.count(open.formation_id)) return spawn_refusal("formation " + open.formation_id + " is already open on this host");
  if (!open.launcher) return spawn_refusal("it named no launcher to watch");
  if (run.door_address.empty() || run.door_address == "0.0.0.0" || run.door_address == "::")
    return spawn_refusal("this host listens on a wildcard address, so its members' doors would have no address to give: "
                   "start mur host --listen with one of the machine's own addresses");
  std::vector<MemberLaunch> launches;
  for (const auto& m : open.members) {
    if (!is_member_name(m.name)) return spawn_refusal("'" + m.name + "' is not a member name");
    const HostCapsuleState found = check_installed(st.setup.store, HostCapsule{m.capsule, m.version, m.sha256});
    if (!found.installed) return spawn_refusal("member '" + m.name + "' (" + m.capsule + "@" + m.version + "): " + found.why);
    launches.push_back(MemberLaunch{m.name, false, m.capsule, m.version, m.sha256, {}});
  }
  const std::string me_start = process_start_of(::getpid());
  try {
    make_formation_dir(open.formation_id, run.workdir, ::getpid(), me_start);
  } catch (const Failure& f) {
    return spawn_refusal(f.what());
  }
  ProcessSpawnerSetup ps;
  ps.program = run.program;
  ps.project_dir = run.workdir;
  ps.members = std::move(launches);
  ps.env = run.env;
  ps.door_address = run.door_address;
  ps.console = run.console;
  ps.processes = std::make_shared<MemberProcesses>();
  st.opened->processes.emplace(open.formation_id, ps.processes);
  HostFormationSetup hs;
  hs.formation_id = open.formation_id;
  hs.launcher = open.launcher;
  hs.spawn = spawn_process_spawner(self->system(), std::move(ps));
  hs.period = run.beat;
  hs.lost_after = run.lost_after;
  hs.kill_grace = run.kill_grace;
  if (!me_start.empty()) hs.identity = LauncherIdentity{::getpid(), me_start};
  auto formation = spawn_host_formation(self->system(), std::move(hs));
  st.open.insert(open.formation_id);
  st.ever.insert(open.formation_id);
  st.watching.emplace(formation.address(), open.formation_id);
  st.opened->formations.emplace(open.formation_id, caf::actor_cast<caf::actor>(formation));
  self->monitor(formation);
  return caf::actor_cast<caf::actor>(formation);
}

} // namespace

host_door spawn_host_agent(caf::actor_system& sys, HostAgentSetup setup) {
  // Detached: an install, a check that hashes a large capsule or a formation's traces take this
  // actor's own thread, never a scheduler thread the host formations answer beats on.
  return sys.spawn<caf::detached>([setup = std::move(setup)](host_door::stateful_pointer<AgentState> self) -> host_door::behavior_type {
    self->state.setup = setup;
    self->state.uploads = std::make_unique<HostUploads>(setup.uploads, setup.store);
    self->attach_functor([opened = self->state.opened](const caf::error&) { // the agent ends: so does all it runs
      for (auto& [id, formation] : opened->formations) caf::anon_send_exit(formation, caf::exit_reason::user_shutdown);
      for (auto& [id, procs] : opened->processes) {
        procs->kill_all();
        procs->join_all();
      }
    });
    self->set_down_handler([self](const caf::down_msg& dm) { // a formation here ended
      auto& st = self->state;
      if (auto it = st.watching.find(dm.source); it != st.watching.end()) {
        st.open.erase(it->second);
        // Its members were killed after the grace at the latest: their watchers end; join them
        // off this actor's thread.
        auto& procs = st.opened->processes;
        if (auto p = procs.find(it->second); p != procs.end()) {
          std::thread([gone = p->second] {
            gone->kill_all();
            gone->join_all();
          }).detach();
          procs.erase(p);
        }
        st.opened->formations.erase(it->second);
        st.watching.erase(it);
      }
    });
    return {
      [self](const HostCheck& check) {
        const auto& st = self->state.setup;
        HostReport r{st.name, st.mur_version, {}};
        for (const auto& c : check.capsules) r.capsules.push_back(check_installed(st.store, c));
        return r;
      },
      [self](const HostUpload& piece) { return self->state.uploads->take(piece); },
      [self](const HostOpen& open) { return open_formation(self, open); },
      [self](const HostTraces& asked) {
        if (!self->state.ever.count(asked.formation_id)) return std::vector<HostTrace>{};
        return formation_traces_here(asked.formation_id);
      },
    };
  });
}

} // namespace mur
