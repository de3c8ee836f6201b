#include "launcher/run/process_spawner.hpp"

#include "actors/spawn_refusal.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "launcher/run/member_console.hpp"
#include "launcher/run/member_process.hpp"
#include "member/member_limits.hpp"
#include "messages/credentials/address_line.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/wire/formation_messages.hpp"
#include "os/channel_writer.hpp"
#include "os/member_cgroup.hpp"
#include "os/member_pipes.hpp"
#include "os/process_spawn.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>
#include <sodium.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <map>
#include <system_error>

namespace mur {
namespace {

// The lifeline's launcher end: owns the write fd and closes it when the actor exits.
lifeline_end::behavior_type lifeline_write_end(lifeline_end::pointer self, std::shared_ptr<UniqueFd> fd) {
  self->attach_functor([fd](const caf::error&) { fd->reset(); });
  return {[=](caf::close_atom) { self->quit(); }};
}

// The spawn port plus what the process watcher threads and its own timer tell it.
using process_spawner_actor = spawn_port::extend<caf::reacts_to<readyline_atom, std::string, std::string>,
                                                 caf::reacts_to<exited_atom, std::string, std::int32_t>,
                                                 caf::reacts_to<ready_timeout_atom, std::string>>;

using Promise = caf::typed_response_promise<MemberStarted, lifeline_end>;

struct Member {
  std::shared_ptr<MemberProcess> proc;
  UniqueFd channel; // write end
  lifeline_end end; // lifeline end
  std::optional<Promise> pending;
  bool started = false; // MemberStarted delivered
  bool failed = false;  // its start was refused: no MemberExited
  bool exited = false;  // its process was reaped: it may be started again (a restart)
  caf::actor_clock::time_point spawned; // a ready timeout of an earlier start of the name is ignored
  std::string formation_id;
};

// The limit of the group a member made that explains how it ended ("" when none does): the
// kernel ended it for memory_mib (E-LIM-001), or it failed after forks were refused (E-LIM-002).
std::string limit_that_ended(const std::string& name, pid_t pid, std::int32_t code) {
  if (pid <= 0) return {};
  const LeftGroup left = read_left_group(pid);
  if (!left.found) return {};
  const int sig = code > 128 && code < 128 + 65 ? code - 128 : 0;
  const LimitReached why = limit_reached("the runtime of member '" + name + "'", left.counts, left.bounds, sig, sig ? 0 : code);
  return why.code_and_what.empty() ? std::string() : why.code_and_what + ". Fix: " + why.fix;
}

struct SpawnerState {
  ProcessSpawnerSetup setup;
  std::map<std::string, Member> members;
  spawn_listener launcher;
  std::shared_ptr<std::vector<lifeline_end>> ends = std::make_shared<std::vector<lifeline_end>>();
  static inline const char* name = "mur.process_spawner";
};

using spawner_actor = process_spawner_actor::stateful_base<SpawnerState>;

const MemberLaunch* launch_of(const SpawnerState& st, const std::string& name) {
  for (const auto& m : st.setup.members)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> argv_for(const MemberLaunch& m, const SpawnerState& st, const std::string& workdir,
                                  const SpawnMember& sm) {
  std::vector<std::string> a{"mur", "run", "--capsule", m.capsule, "--capsule-version", m.version,
                             "--capsule-sha256", m.sha256, "--workdir", workdir, "--store-root",
                             st.setup.project_dir, "--json"};
  if (!st.setup.door_address.empty()) {
    a.push_back("--door-address");
    a.push_back(st.setup.door_address);
  }
  if (m.entry) { // the entry rule itself is applied by the member's wiring (capsule/member_wiring.hpp)
    a.push_back("--formation-entry");
    if (!sm.task.empty()) a.push_back("--launch-task-stdin"); // its text on stdin, never on argv
  }
  return a;
}

// The member's start failed: refuse the request, close its lifeline, make sure it is gone.
void refuse_start(spawner_actor* self, const std::string& name, const std::string& reason) {
  auto it = self->state.members.find(name);
  if (it == self->state.members.end()) return;
  Member& m = it->second;
  if (!m.pending) return;
  m.failed = true;
  m.pending->deliver(spawn_refusal(reason + m.proc->stderr_tail()));
  m.pending.reset();
  if (m.end) self->send_exit(m.end, caf::exit_reason::user_shutdown);
  m.proc->kill_now();
}

void on_ready_line(spawner_actor* self, const std::string& name, const std::string& line,
                   const std::string& formation_id) {
  auto it = self->state.members.find(name);
  if (it == self->state.members.end() || !it->second.pending) return;
  Member& m = it->second;
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return refuse_start(self, name, "its first line was not a readiness line");
  const std::string frm = j.value("formation_id", std::string());
  const std::string ses = j.contains("session_id") && j["session_id"].is_string() ? j["session_id"].get<std::string>() : "";
  std::string url = j.contains("url") && j["url"].is_string() ? j["url"].get<std::string>() : "";
  if (ses.empty()) return refuse_start(self, name, "its readiness line named no session");
  if (url.empty()) return refuse_start(self, name, "its readiness line named no door");
  if (frm != formation_id)
    return refuse_start(self, name, frm.empty() ? "it reported no formation" : "it reported another formation");
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) url = "http://" + url;
  m.started = true;
  m.pending->deliver(MemberStarted{name, ses, url, static_cast<std::int64_t>(m.proc->pid.get())}, m.end);
  m.pending.reset();
}

caf::result<MemberStarted, lifeline_end> start_member(spawner_actor* self, const SpawnMember& sm, const BundleRef& ref) {
  auto& st = self->state;
  st.launcher = caf::actor_cast<spawn_listener>(self->current_sender());
  const MemberLaunch* launch = launch_of(st, sm.name);
  if (launch == nullptr || !ref.bundle) return spawn_refusal("it is not a member of this roster");
  const auto before = st.members.find(sm.name);
  const bool again = before != st.members.end();
  if (again && !before->second.exited) return spawn_refusal("it was already started, and runs");
  if (again) st.members.erase(before); // a restart: the reaped process's pipes are closed already
  std::string workdir = st.setup.project_dir;
  if (!launch->entry) {
    PeerDir dir = again ? reuse_peer_dir(sm.formation_id, sm.name) : make_peer_dir(sm.formation_id, sm.name);
    if (!dir.refusal.empty()) return spawn_refusal(dir.refusal);
    workdir = dir.path;
  }

  MemberPipes pipes;
  PipeEnds out, err, in; // `in`: the entry's stdin when it has a launch task
  UniqueFd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  auto proc = std::make_shared<MemberProcess>();
  proc->name = sm.name;
  proc->entry = launch->entry;
  try {
    pipes = make_member_pipes();
    out = make_pipe();
    err = make_pipe();
    const bool feeds_task = launch->entry && !sm.task.empty();
    if (feeds_task) in = make_pipe();
    SpawnRequest rq;
    rq.program = st.setup.program;
    rq.argv = argv_for(*launch, st, workdir, sm);
    rq.env = st.setup.env;
    rq.env.erase(std::remove_if(rq.env.begin(), rq.env.end(),
                                [&](const std::string& e) {
                                  const std::string name = e.substr(0, e.find('='));
                                  return std::find(launch->withheld.begin(), launch->withheld.end(), name) !=
                                         launch->withheld.end();
                                }),
                 rq.env.end());
    set_env_entry(rq.env, FORMATION_ID_ENV, sm.formation_id);
    set_env_entry(rq.env, FORMATION_CHANNEL_ENV, std::to_string(MEMBER_CHANNEL_FD));
    set_env_entry(rq.env, FORMATION_LIFELINE_ENV, std::to_string(MEMBER_LIFELINE_FD));
    rq.inherit = {pipes.channel.read.get(), pipes.lifeline.read.get()};
    rq.stdin_fd = feeds_task ? in.read.get() : devnull.get();
    rq.stdout_fd = out.write.get();
    rq.stderr_fd = err.write.get();
    rq.own_process_group = !launch->entry;
    rq.cwd = workdir;
    proc->pid.set(spawn_process(rq));
  } catch (const std::system_error& e) {
    return spawn_refusal(std::string("could not be started (") + e.what() + ")");
  }
  self->send(st.launcher, spawned_atom_v, sm.name, static_cast<std::int64_t>(proc->pid.get()));
  pipes.channel.read.reset();
  pipes.lifeline.read.reset();
  out.write.reset();
  err.write.reset();
  in.read.reset();
  if (in.write.valid()) st.setup.processes->feed(std::move(in.write), sm.task);

  Member m;
  m.proc = proc;
  m.channel = std::move(pipes.channel.write);
  m.end = self->system().spawn(lifeline_write_end, std::make_shared<UniqueFd>(std::move(pipes.lifeline.write)));
  st.ends->push_back(m.end);
  auto rp = self->make_response_promise<MemberStarted, lifeline_end>();
  m.pending = rp;
  m.formation_id = sm.formation_id;
  m.spawned = self->clock().now();
  const int channel_fd = m.channel.get();
  st.members.emplace(sm.name, std::move(m));

  process_spawner_actor me{self};
  const std::string name = sm.name;
  MemberOutputHandlers h;
  h.ready_line = [me, name](const std::string& line) { caf::anon_send(me, readyline_atom_v, name, line); };
  h.exited = [me, name](int code) { caf::anon_send(me, exited_atom_v, name, static_cast<std::int32_t>(code)); };
  st.setup.processes->watch(proc, std::move(out.read), std::move(err.read), st.setup.console, h);

  std::string first = render_bundle(*ref.bundle);
  const bool wrote = write_channel_line(channel_fd, first);
  sodium_memzero(first.data(), first.size());
  if (wrote && !sm.addresses.empty()) {
    std::vector<MemberAddress> addrs;
    for (const auto& a : sm.addresses) addrs.push_back({a.member, a.text});
    write_channel_line(channel_fd, render_address_line(addrs));
  }
  self->delayed_send(self, st.setup.ready_deadline, ready_timeout_atom_v, name);
  return rp;
}

process_spawner_actor::behavior_type spawner(spawner_actor* self, ProcessSpawnerSetup setup) {
  self->state.setup = std::move(setup);
  self->attach_functor([ends = self->state.ends](const caf::error&) {
    for (auto& e : *ends) caf::anon_send_exit(e, caf::exit_reason::user_shutdown);
  });
  return {
    [=](const SpawnMember& sm, const BundleRef& ref) -> caf::result<MemberStarted, lifeline_end> {
      return start_member(self, sm, ref);
    },
    [=](readyline_atom, const std::string& name, const std::string& line) {
      auto it = self->state.members.find(name);
      if (it == self->state.members.end()) return;
      on_ready_line(self, name, line, it->second.formation_id);
    },
    [=](exited_atom, const std::string& name, std::int32_t code) {
      auto it = self->state.members.find(name);
      if (it == self->state.members.end()) return;
      Member& m = it->second;
      m.exited = true;
      it->second.channel.reset();
      const std::string limit = limit_that_ended(name, m.proc->pid.get(), code);
      if (m.pending) {
        refuse_start(self, name, m.proc->killed_for_closed_stdout()
                                   ? "it closed its stdout without exiting, and was killed " +
                                       std::to_string(STDOUT_CLOSED_GRACE.count() / 1000) + "s later"
                                   : "it exited (code " + std::to_string(code) + ") before reporting its session" +
                                       (limit.empty() ? "" : " (" + limit + ")"));
        return;
      }
      if (m.failed) return;
      if (self->state.launcher) self->send(self->state.launcher, MemberExited{name, code, m.proc->stderr_tail(), limit});
    },
    [=](ready_timeout_atom, const std::string& name) {
      auto it = self->state.members.find(name);
      if (it == self->state.members.end() || self->clock().now() - it->second.spawned < self->state.setup.ready_deadline)
        return; // a timer of an earlier start of this name
      refuse_start(self, name, "it did not report its session within " +
                                 std::to_string(self->state.setup.ready_deadline.count() / 1000) + "s");
    },
    [=](const SendAddresses& sa) {
      auto it = self->state.members.find(sa.name);
      if (it == self->state.members.end() || it->second.channel.get() < 0) return;
      std::vector<MemberAddress> addrs;
      for (const auto& a : sa.addresses) addrs.push_back({a.member, a.text});
      write_channel_line(it->second.channel.get(), render_address_line(addrs));
    },
    [=](const KillMember& k) {
      auto it = self->state.members.find(k.name);
      if (it != self->state.members.end()) it->second.proc->kill_now();
    },
  };
}

} // namespace

spawn_port spawn_process_spawner(caf::actor_system& sys, ProcessSpawnerSetup setup) {
  return spawn_port{sys.spawn(spawner, std::move(setup))};
}

} // namespace mur
