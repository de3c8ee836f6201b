// child_spawner.cpp — see child_spawner.hpp.
#include "member/child_spawner.hpp"

#include "capsule/capsule_store.hpp"
#include "member/child_process.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/credentials/spawn_grant.hpp"
#include "messages/wire/door_call.hpp"
#include "os/formation_env.hpp"
#include "os/member_pipes.hpp"
#include "os/process_spawn.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <system_error>

namespace mur {

std::vector<std::string> child_environment(const std::vector<std::string>& parent, const std::string& formation_id) {
  std::vector<std::string> env;
  for (const auto& e : parent) {
    if (e.rfind("MURMUR_FORMATION_", 0) == 0 || e.rfind("MURMUR_SPAWNER", 0) == 0) continue;
    env.push_back(e);
  }
  if (!formation_id.empty()) env.push_back(std::string(FORMATION_ID_ENV) + "=" + formation_id);
  env.push_back(std::string(SPAWNER_LIFELINE_ENV) + "=" + std::to_string(CHILD_LIFELINE_FD));
  return env;
}

// `sleep`, not `exit`, after its task: a child that exited the moment its task ended would take
// its door with it before its parent read the answer (the parent follows the task after
// SendMessage returned). Its parent ends it (EndChild) once the delegation ended.
std::vector<std::string> child_argv(const std::string& capsule, const std::string& version,
                                    const std::string& store_root, const std::string& workdir) {
  return {"mur", "run", "--capsule", capsule, "--capsule-version", version, "--store-root", store_root,
          "--json", "--spawn-grant-stdin", "--lifecycle-task-acceptance", "single",
          "--lifecycle-after-task", "sleep", "--workdir", workdir};
}

namespace {

// A private directory made here and now: "" or why not. `fresh` ⇒ nothing may be at `path` yet.
std::string private_dir(const std::string& path, bool fresh) {
  if (::mkdir(path.c_str(), 0700) != 0) {
    if (errno != EEXIST || fresh) return std::string("its directory could not be made (") + std::strerror(errno) + ")";
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "its directory's parent is not a directory";
  }
  ::chmod(path.c_str(), 0700);
  return "";
}

// The child port plus what its threads and its own timers tell it.
using child_spawner_actor =
  child_port::extend<caf::reacts_to<spawned_atom, std::string, std::int64_t>,
                     caf::reacts_to<readyline_atom, std::string, std::string>,
                     caf::reacts_to<exited_atom, std::string, std::int32_t, std::string>,
                     caf::reacts_to<ready_timeout_atom, std::string>,
                     caf::reacts_to<deadline_atom, std::string>>;

using Promise = caf::typed_response_promise<ChildStarted, Bearer>;

struct Child {
  std::shared_ptr<ChildProcess> proc;
  std::optional<Promise> pending;
  std::shared_ptr<const DoorToken> token;
  std::string capsule;
  std::int64_t pid = 0;
};

struct SpawnerState {
  ChildSpawnerSetup setup;
  std::map<std::string, Child> children; // by delegation id, until reaped
  static inline const char* name = "mur.child_spawner";
};

using spawner_actor = child_spawner_actor::stateful_base<SpawnerState>;

ChildStarted failed(const std::string& call_id, std::string why) { return ChildStarted{call_id, "", "", 0, std::move(why)}; }

caf::result<ChildStarted, Bearer> not_started(const std::string& call_id, std::string why) {
  return caf::result<ChildStarted, Bearer>(failed(call_id, std::move(why)), Bearer{});
}

// Answers a pending StartChild with `why`, and makes sure that child ends.
void refuse(spawner_actor* self, const std::string& call_id, const std::string& why) {
  auto it = self->state.children.find(call_id);
  if (it == self->state.children.end() || !it->second.pending) return;
  Child& c = it->second;
  std::string tail = c.proc->stderr_tail();
  if (tail.size() > 2000) tail = "\n  | …" + tail.substr(tail.size() - 2000);
  c.pending->deliver(failed(call_id, why + tail), Bearer{});
  c.pending.reset();
  c.proc->close_lifeline();
  c.proc->kill_group();
}

void on_ready_line(spawner_actor* self, const std::string& call_id, const std::string& line) {
  auto it = self->state.children.find(call_id);
  if (it == self->state.children.end() || !it->second.pending) return;
  Child& c = it->second;
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return refuse(self, call_id, c.capsule + "'s first line was not a readiness line");
  auto text = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
  if (j.contains("error") && j["error"].is_object()) { // `mur run --json` refused to start: its code, reason and Fix
    const auto& e = j["error"];
    auto field = [&](const char* k) {
      std::string v = e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string();
      return v.find("://") == std::string::npos ? v : std::string(); // never a url (a door's, a model server's)
    };
    std::string why = c.capsule + " refused to start";
    if (!field("code").empty()) why += ": " + field("code");
    if (!field("message").empty()) why += ": " + field("message");
    if (!field("fix").empty()) why += ". Fix: " + field("fix");
    return refuse(self, call_id, why);
  }
  const std::string ses = text("session_id");
  std::string url = text("url");
  if (ses.empty()) return refuse(self, call_id, c.capsule + "'s readiness line named no session");
  if (url.empty()) return refuse(self, call_id, c.capsule + "'s readiness line named no door");
  if (text("formation_id") != self->state.setup.formation_id)
    return refuse(self, call_id, c.capsule + " reported " + (text("formation_id").empty() ? "no" : "another") + " formation");
  if (url.rfind("http://", 0) != 0) url = "http://" + url;
  c.pending->deliver(ChildStarted{call_id, ses, url, c.pid, ""}, Bearer{nullptr, c.token});
  c.pending.reset();
}

// The delegation's slot of the live ledger goes back: its child is gone, or was never started.
void free_slot(spawner_actor* self, const std::string& call_id) {
  if (self->state.setup.live) self->send(self->state.setup.live, FreeLiveSlot{call_id});
}

caf::result<ChildStarted, Bearer> start_child(spawner_actor* self, const StartChild& rq) {
  auto& st = self->state;
  const std::string who = rq.capsule + "@" + rq.version;
  bool allowed = false;
  for (const auto& t : st.setup.allowed) allowed = allowed || (t.capsule == rq.capsule && t.version == rq.version);
  if (!allowed) {
    free_slot(self, rq.call_id);
    return not_started(rq.call_id, who + " is not in this capsule's spawn.allow");
  }
  if (!is_delegation_id(rq.call_id) || st.children.count(rq.call_id))
    return not_started(rq.call_id, "the delegation id is not usable for a child"); // a slot of another's: kept

  PipeEnds lifeline;
  try {
    lifeline = make_pipe(); // both ends close-on-exec: no other child of this process inherits them
  } catch (const std::system_error& e) {
    free_slot(self, rq.call_id);
    return not_started(rq.call_id, std::string("its lifeline could not be made (") + e.what() + ")");
  }
  // The grant: a fresh key the child's door will trust; its operator token is minted here from it.
  DoorKey key = DoorKey::random();
  auto token = std::make_shared<const DoorToken>(DoorTokenIssuer(key.bytes()).issue({}).at(0).token);

  const std::string children_dir = st.setup.session_dir + "/children";
  const std::string workdir = children_dir + "/" + rq.call_id;
  ChildLaunch launch;
  launch.program = st.setup.program;
  launch.argv = child_argv(rq.capsule, rq.version, st.setup.store_root, workdir);
  launch.env = child_environment(st.setup.env, st.setup.formation_id);
  launch.cwd = workdir;
  launch.lifeline_read = std::move(lifeline.read);
  launch.grant = render_spawn_grant(key, st.setup.session_id, rq.call_id, st.setup.depth + 1, st.setup.live_dir);
  launch.prepare = [root = st.setup.store_root, children_dir, workdir, name = rq.capsule, version = rq.version,
                    who](ChildLaunch& l) -> std::string {
    // Resolved here only to fail early with a sentence; the child resolves (and checks) again.
    auto r = resolve_capsule(StoreRoots::for_project(root), name, version);
    if (auto* miss = std::get_if<ResolveMiss>(&r)) return who + " cannot be started: " + miss->why;
    l.argv.insert(l.argv.end(), {"--capsule-sha256", std::get<ResolvedCapsule>(r).stored.sha256});
    std::string why = private_dir(children_dir, false);
    if (why.empty()) why = private_dir(workdir, true);
    return why.empty() ? why : who + " cannot be started: " + why;
  };

  Child c;
  c.proc = std::make_shared<ChildProcess>(std::move(lifeline.write));
  c.token = token;
  c.capsule = rq.capsule;
  auto rp = self->make_response_promise<ChildStarted, Bearer>();
  c.pending = rp;
  auto proc = c.proc;
  st.children.emplace(rq.call_id, std::move(c));

  child_spawner_actor me{self};
  const std::string id = rq.call_id;
  ChildEvents ev;
  ev.spawned = [me, id](pid_t pid) { caf::anon_send(me, spawned_atom_v, id, static_cast<std::int64_t>(pid)); };
  ev.first_line = [me, id](const std::string& line) { caf::anon_send(me, readyline_atom_v, id, line); };
  ev.ended = [me, id](int code, const std::string& failure) {
    caf::anon_send(me, exited_atom_v, id, static_cast<std::int32_t>(code), failure);
  };
  st.setup.processes->start(proc, std::move(launch), std::move(ev));
  self->delayed_send(self, st.setup.ready_deadline, ready_timeout_atom_v, id);
  return rp;
}

child_spawner_actor::behavior_type child_spawner(spawner_actor* self, ChildSpawnerSetup setup) {
  self->state.setup = std::move(setup);
  // The port's own end: every child's lifeline closes (the session's end_all waits and kills).
  self->attach_functor([processes = self->state.setup.processes](const caf::error&) { processes->close_all(); });
  return {
    [=](const StartChild& rq) -> caf::result<ChildStarted, Bearer> { return start_child(self, rq); },
    [=](const EndChild& e) {
      auto it = self->state.children.find(e.call_id);
      if (it == self->state.children.end()) return;
      refuse(self, e.call_id, "its delegation ended before it started");
      it->second.proc->close_lifeline();
      self->delayed_send(self, self->state.setup.end_grace, deadline_atom_v, e.call_id);
    },
    [=](spawned_atom, const std::string& id, std::int64_t pid) {
      auto it = self->state.children.find(id);
      if (it != self->state.children.end()) it->second.pid = pid;
    },
    [=](readyline_atom, const std::string& id, const std::string& line) { on_ready_line(self, id, line); },
    [=](exited_atom, const std::string& id, std::int32_t code, const std::string& failure) {
      auto it = self->state.children.find(id);
      if (it == self->state.children.end()) return;
      if (!failure.empty()) refuse(self, id, failure);
      else refuse(self, id, it->second.capsule + " exited (code " + std::to_string(code) + ") before reporting its session");
      self->state.children.erase(it); // reaped: nothing of it is left to end
      free_slot(self, id);
    },
    [=](ready_timeout_atom, const std::string& id) {
      auto it = self->state.children.find(id);
      if (it == self->state.children.end()) return;
      refuse(self, id, it->second.capsule + " did not report its session within " +
                         std::to_string(self->state.setup.ready_deadline.count() / 1000) + "s");
    },
    [=](deadline_atom, const std::string& id) { // the end's grace ran out
      auto it = self->state.children.find(id);
      if (it != self->state.children.end()) it->second.proc->kill_group();
    },
  };
}

} // namespace

child_port spawn_child_spawner(caf::actor_system& sys, ChildSpawnerSetup setup) {
  return child_port{sys.spawn(child_spawner, std::move(setup))};
}

} // namespace mur
