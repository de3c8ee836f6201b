#include "member/run_capsule.hpp"
#include "member/workdir_fix.hpp"
#include "member/member_seal.hpp"
#include <filesystem>
#include <sys/stat.h>
#include <cerrno>
#include <cstring>
#include "os/program_starter.hpp"
#include "os/terminal_question.hpp"
#include "messages/vocabulary/message_types.hpp"
#include "messages/wire/register_messages.hpp"

#include "actors/atoms.hpp"
#include "actors/member.hpp"
#include "actors/trace_recorder.hpp"
#include "capsule/manifest.hpp"
#include "capsule/member_wiring.hpp"
#include "capsule/murmur_home.hpp"
#include "capsule/session_store.hpp"
#include "http/curl_pool.hpp"
#include "http/door_network.hpp"
#include "http/door_server.hpp"
#include "http/tls_front.hpp"
#include "member/child_process.hpp"
#include "member/child_spawner.hpp"
#include "member/formation_join.hpp"
#include "member/live_ledger.hpp"
#include "member/egress_notices.hpp"
#include "member/member_limits.hpp"
#include "member/model_start.hpp"
#include "member/otel_export.hpp"
#include "member/program_dir.hpp"
#include "member/result_writer.hpp"
#include "member/running_record.hpp"
#include "member/session_dir.hpp"
#include "member/tools_start.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "messages/credentials/spawn_grant.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/terminal_text.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/model_turn.hpp"
#include "os/fd_limit.hpp"
#include "os/live_slots.hpp"
#include "os/process_spawn.hpp"
#include "os/process_start.hpp"
#include "os/signal_watch.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include <csignal>
#include <nlohmann/json.hpp>

#include <sodium.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <unistd.h>

namespace mur {
namespace {

using json = nlohmann::json;

std::string current_dir() {
  char buf[4096];
  if (::getcwd(buf, sizeof buf) == nullptr)
    throw Failure("E-RUN-007", "the current directory cannot be read", "cd into an existing directory");
  return buf;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
    .count();
}

void print_ready(const RunCapsuleOptions& o, const Manifest& m, const std::string& ses, const std::string& url,
                 const std::string& workdir, const std::string& formation_id) {
  if (o.json) {
    json line{{"session_id", ses}, {"url", url}, {"pid", static_cast<std::int64_t>(::getpid())},
              {"name", m.name}, {"version", m.version}, {"workdir", workdir}};
    if (!formation_id.empty()) line["formation_id"] = formation_id;
    std::cout << line.dump() << std::endl;
    return;
  }
  std::cerr << m.name << " " << m.version << " ready\n  session " << ses << "\n  door    " << url
            << "\n  workdir " << workdir << "\n";
  if (!formation_id.empty()) std::cerr << "  formation " << formation_id << "\n";
  if (o.task.empty()) std::cerr << "  send it a task: mur send " << ses << " \"…\"; stop it with Ctrl-C\n";
  else std::cerr << "  it runs the task given with --task, then ends; stop it sooner with Ctrl-C\n";
}

std::string empty_answer_note(const TaskView& t) {
  if (!t.status_text.empty() && t.status_text != "completed") return t.status_text;
  return "the task completed with an empty answer (mur trace show shows what happened)";
}

void print_answer(const RunCapsuleOptions& o, const TaskView& t) {
  if (o.json) {
    json line{{"task_id", t.id}, {"state", state_word(t.state)}, {"answer", result_text(t)}};
    if (t.state != TaskState::completed) line["reason"] = t.status_text;
    // An empty answer is told apart from any other: `note` says so (and why, when the model's
    // end-without-answer was refused), as the text form does on stderr.
    if (t.state == TaskState::completed && t.answer.empty()) line["note"] = empty_answer_note(t);
    if (t.no_answer) line["no_answer"] = true;
    if (!t.no_answer_below.empty()) {
      json below = json::array();
      for (const auto& n : t.no_answer_below) below.push_back({{"member", n.member}, {"status", n.status}});
      line["no_answer_from"] = std::move(below);
    }
    std::cout << line.dump() << std::endl;
  } else if (t.state == TaskState::completed) {
    std::cout << terminal_safe_for(1, t.answer) << std::endl;
    if (t.answer.empty()) std::cerr << "note: " << terminal_safe(empty_answer_note(t)) << "\n";
  } else if (t.no_answer) {
    std::cerr << "the task ended without an answer: " << terminal_safe(t.status_text) << "\n";
  } else {
    std::cerr << "the task ended " << state_word(t.state)
              << (t.status_text.empty() ? std::string() : ": " + terminal_safe(t.status_text)) << "\n";
  }
}

// What a serving session holds, from its ports to its door server.
struct Session {
  std::string id;
  std::string workdir;
  SessionDir dir;
  network_port network;
  trace_port trace;
  model_port model;
  member_handle member;
  std::unique_ptr<DoorServer> server;
  std::unique_ptr<TlsFront> front;              // a door on another host: its TLS side (the server on loopback)
  child_port children;                          // null unless the capsule may delegate
  live_port live;                               // its children's slots (null unless it may delegate)
  tool_port tools;                              // null unless the capsule declares tools
  std::shared_ptr<ChildProcesses> child_processes;
  std::unique_ptr<EgressNotices> notices;       // what its programs' proxies refused (null without programs)
  std::shared_ptr<MemberOtelExport> otel;       // its spans' exporter (null without an OTLP endpoint)
};

// The grant of a delegated child: one line on stdin, read to its end (bounded), then wiped.
SpawnGrant read_grant_from_stdin() {
  std::string buf;
  char chunk[512];
  for (;;) {
    const ssize_t n = ::read(0, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
    if (buf.size() > SPAWN_GRANT_MAX_BYTES) break;
  }
  sodium_memzero(chunk, sizeof chunk);
  try {
    SpawnGrant g = parse_spawn_grant(buf);
    sodium_memzero(buf.data(), buf.size());
    return g;
  } catch (...) {
    sodium_memzero(buf.data(), buf.size());
    throw;
  }
}

// The session directory; an agent program working in the user's own directory would reach its
// session there, so that session is made in the store out of its reach and linked into place
// (capsule/session_store.hpp).
SessionDir open_session_dir(const std::string& workdir, const std::string& session_id, const ProgramDir* program) {
  std::string store;
  if (program != nullptr && program->trace_in_reach) {
    store = session_store();
    make_private_dirs(store);
  }
  return make_session_dir(workdir, session_id, store);
}

// The door's tokens: the issuer (a delegated child's trusts the key its parent drew; the parent
// holds its operator token), the operator's token, and one per declared credential.
struct DoorTokens {
  std::shared_ptr<DoorTokenIssuer> issuer;
  bool authenticated = false;
  std::optional<DoorToken> operator_token;
  std::vector<std::pair<std::string, DoorToken>> credential_tokens; // kept in the running record only
};

DoorTokens issue_door_tokens(const Manifest& m, const SpawnGrant* grant) {
  DoorTokens t;
  t.issuer = grant ? std::make_shared<DoorTokenIssuer>(grant->key.bytes()) : std::make_shared<DoorTokenIssuer>();
  t.authenticated = m.authentication.has_value() || grant != nullptr;
  std::vector<DoorGrant> grants;
  if (m.authentication)
    for (const auto& c : m.authentication->credentials) grants.push_back({c.name, c.scopes});
  try {
    auto issued = t.issuer->issue(grants);
    if (t.authenticated) t.operator_token = issued.at(0).token;
    for (std::size_t i = 1; i < issued.size(); ++i) t.credential_tokens.emplace_back(issued[i].grant.credential, issued[i].token);
  } catch (const std::invalid_argument& e) {
    throw Failure("E-MAN-002", std::string("network.authentication.credentials: ") + e.what(), "fix the manifest");
  }
  return t;
}

// The formation's live ledger a delegating capsule takes its children's slots from: the one its
// grant names, its formation's (made by the launcher), or — a capsule run alone — one of its own
// in its session directory, whose ceiling counts it as the one member.
// Always an absolute path (a grant accepts no other), or "" when it is not one a grant can carry:
// the ledger then refuses every slot, naming why.
std::string live_ledger_dir(const Session& s, const JoinedFormation& formation, const SpawnGrant* grant) {
  if (grant && !grant->live_dir.empty()) return grant->live_dir;
  auto absolute = [](std::string p) { return p.empty() || p.front() == '/' ? p : current_dir() + "/" + p; };
  if (!formation.id.empty()) {
    const std::string dir = absolute(formation_live_dir(formation.id));
    return is_grantable_live_dir(dir) ? dir : "";
  }
  const std::string dir = absolute(s.dir.path + "/live");
  if (!is_grantable_live_dir(dir)) return "";
  try {
    make_live_ledger(dir, LiveLimit{default_max_live, 1});
  } catch (const std::runtime_error&) {
    // Left unmade: the ledger then refuses every slot, naming why (it fails closed).
  }
  return dir;
}

// The real child port, for a capsule that may delegate: this process starts and ends the
// children, each holding a slot of the formation's live ledger while it runs.
void spawn_children(caf::actor_system& sys, Session& s, const Manifest& m, const RunCapsuleOptions& o,
                    const JoinedFormation& formation, const SpawnGrant* grant) {
  if (m.spawn_allow.empty()) return;
  ChildSpawnerSetup cs;
  cs.depth = grant ? grant->depth : 0;
  cs.live_dir = live_ledger_dir(s, formation, grant);
  s.live = spawn_live_ledger(sys, cs.live_dir);
  cs.live = s.live;
  cs.program = self_binary();
  cs.store_root = o.store_root.empty() ? current_dir() : o.store_root;
  cs.session_dir = s.dir.path;
  cs.session_id = s.id;
  cs.formation_id = formation.id;
  cs.env = current_environment();
  for (const auto& t : m.spawn_allow) cs.allowed.push_back(SpawnTarget{t.name, t.version});
  s.child_processes = std::make_shared<ChildProcesses>();
  cs.processes = s.child_processes;
  s.children = spawn_child_spawner(sys, std::move(cs));
}

// What the door server serves: the member's door, its tokens, the formation's verifier, the card.
DoorServerSetup door_server_setup(caf::actor_system& sys, const door_handle& door, const Session& s, const Manifest& m,
                                  const RunCapsuleOptions& o, const JoinedFormation& formation, const DoorTokens& tokens,
                                  bool takes_tasks, std::size_t door_connections) {
  DoorServerSetup ds;
  ds.system = &sys;
  ds.door = door;
  ds.door_tokens = tokens.issuer;
  if (formation.bundle)
    ds.formation = std::make_shared<FormationVerifier>(formation.id, formation.bundle->member, formation.bundle->verify_key);
  ds.card.capsule_name = m.name;
  ds.card.capsule_version = m.version;
  ds.card.description = m.description;
  ds.port = static_cast<std::uint16_t>(o.port);
  ds.address = o.door_address;
  ds.card.session_id = s.id;
  ds.card.authenticated = tokens.authenticated;
  ds.card.accepts_peer_tasks = m.accepts_peer_tasks;
  ds.card.takes_tasks = takes_tasks;
  ds.max_connections = door_connections;
  return ds;
}

// The running record that mur ps, send, stop and token read.
void write_session_record(const Session& s, const Manifest& m, const JoinedFormation& formation,
                          const SpawnGrant* grant, const DoorTokens& tokens) {
  RunningRecord rec;
  rec.session_id = s.id;
  rec.pid = ::getpid();
  rec.process_start = process_start_of(::getpid());
  rec.url = s.server->url();
  rec.capsule_name = m.name;
  rec.capsule_version = m.version;
  std::error_code ec; // absolute, so that a command run elsewhere finds the trace under it
  const auto workdir = std::filesystem::absolute(s.workdir, ec);
  rec.workdir = ec ? s.workdir : workdir.lexically_normal().string();
  rec.formation_id = formation.id;
  rec.formation_member = formation.bundle ? formation.bundle->member : "";
  rec.formation_lifeline = formation.has_lifeline;
  if (formation.bundle) rec.formation_launcher = formation.bundle->launcher;
  if (grant) rec.spawned_by = grant->spawned_by;
  rec.started_at = now_ms();
  // A delegated child's operator credential is its parent's alone: not on disk, so no `mur send`
  // or `mur token` of the same user reaches its door (`mur stop` still ends an orphan by signal).
  if (!grant) rec.operator_token = tokens.operator_token;
  rec.credential_tokens = tokens.credential_tokens;
  write_running_record(rec);
}

// Serving: session directory, door tokens, the member actor wired by member_setup(), its door on
// HTTP, the running record, the readiness line. Throws mur::Failure before the door serves.
Session serve(caf::actor_system& sys, const supervisor_port& waiter, const Manifest& m,
              const RunCapsuleOptions& o, const LaunchOptions& launch, const JoinedFormation& formation,
              const SpawnGrant* grant, std::size_t door_connections, const MemberCgroup& limits) {
  Session s;
  s.id = launch.session_id;
  s.workdir = o.workdir.empty() ? current_dir() : o.workdir;
  // Where the capsule's programs run and what they may reach (whether its sessions would be in
  // their reach), worked out once.
  const bool has_programs = capsule_has_programs(m);
  ProgramPlace programs;
  if (has_programs) programs.dir = program_dir_for(s.workdir, murmur_home());
  s.dir = open_session_dir(s.workdir, s.id, has_programs ? &programs.dir : nullptr);
  const DoorTokens tokens = issue_door_tokens(m, grant);

  auto pool = std::make_shared<CurlPool>(); // every outgoing call: other doors and the model server
  const EnvRead own_env = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  // Its spans, when OTEL_* name a collector: built from the lines its trace writes (a lone
  // session says what is wrong with the variables; a formation's launcher already did).
  s.otel = MemberOtelExport::start(!grant && formation.id.empty());
  TraceSink sink = trace_file_sink(s.dir);
  if (s.otel) sink = s.otel->wrap(std::move(sink));
  s.trace = spawn_trace_recorder(sys, s.id, std::move(sink));
  if (has_programs) {
    programs.isolation = program_isolation(m, s.workdir, programs.dir, own_env);
    s.notices = std::make_unique<EgressNotices>(s.trace);
    programs.isolation.notice_fd = s.notices->write_fd();
    if (!m.real_home) programs.home = programs.dir.home;
    bound_programs(m, limits, programs.isolation);
    programs.limits = limits;
    programs.bounds = bounds_of(m);
    const std::string warning = isolation_warning(programs.isolation, m.name);
    if (!warning.empty()) std::cerr << "warning " << warning << "\n";
  }
  StartedModel model = start_model(sys, m, pool, own_env, programs);
  s.model = model.port;
  s.network = spawn_door_network(sys, pool, formation.bundle ? formation.bundle->tls.authority : std::string());
  const supervisor_port supervisor = spawn_result_writer(sys, s.dir, waiter);
  spawn_children(sys, s, m, o, formation, grant);
  StartedTools tools = start_tools(sys, m, own_env, s.workdir, programs, s.trace, pool);
  s.tools = tools.port;
  MemberSetup ms = member_setup(m, launch, MemberPorts{s.trace, s.network, s.model, supervisor, IdClockSpec{},
                                                        s.children, tools.port, std::move(tools.tools), s.live});
  ms.system_prompt = std::move(model.system_prompt);
  ms.authenticated = tokens.authenticated;
  if (grant) {
    ms.spawned_by = grant->spawned_by;
    ms.delegation_id = grant->delegation;
    ms.delegation_depth = grant->depth;
  }
  const bool takes_tasks = ms.acceptance.kind != AcceptancePolicy::Kind::none;
  s.member = spawn_member(sys, std::move(ms));

  door_handle door;
  caf::scoped_actor self{sys};
  self->request(s.member, caf::infinite, caf::get_atom_v)
    .receive([&](const door_handle& d) { door = d; },
             [&](const caf::error& e) { throw Failure("E-RUN-049", "the session did not start: " + sys.render(e), "report this bug"); });
  try {
    DoorServerSetup ds = door_server_setup(sys, door, s, m, o, formation, tokens, takes_tasks, door_connections);
    if (formation.bundle && !formation.bundle->tls.certificate.empty()) { // a door on another host: TLS only
      s.front = std::make_unique<TlsFront>(TlsFrontSetup{o.door_address, formation.bundle->tls.certificate,
                                                         formation.bundle->tls.key, door_connections});
      const bool v6 = o.door_address.find(':') != std::string::npos;
      ds.address = "127.0.0.1";
      ds.public_url = "https://" + (v6 ? "[" + o.door_address + "]" : o.door_address) + ":" + std::to_string(s.front->port());
    }
    s.server = std::make_unique<DoorServer>(std::move(ds));
    if (s.front) s.front->serve(s.server->port());
  } catch (const Failure&) { // e.g. a pinned port that is taken: nothing may be left running
    for (const auto& a : {caf::actor_cast<caf::actor>(s.member), caf::actor_cast<caf::actor>(s.network),
                          caf::actor_cast<caf::actor>(s.trace), caf::actor_cast<caf::actor>(s.model),
                          caf::actor_cast<caf::actor>(supervisor), caf::actor_cast<caf::actor>(s.children), caf::actor_cast<caf::actor>(s.live),
                          caf::actor_cast<caf::actor>(s.tools)})
      if (a) self->send_exit(a, caf::exit_reason::user_shutdown);
    throw;
  }
  write_session_record(s, m, formation, grant, tokens);
  // The trace's first lines reach the disk before anyone is told the session is ready: asking
  // the recorder for its lines flushes its sink, so `mur view` or `mur trace show` started on
  // the readiness line finds the trace.
  self->request(s.trace, caf::infinite, trace_atom_v).receive([](const std::vector<std::string>&) {}, [](const caf::error&) {});
  print_ready(o, m, s.id, s.server->url(), s.workdir, formation.id);
  return s;
}

// The launch task waits for a person's answer: the question and how to answer it, on stderr
// (stdout carries only the answer; a formation's console names the member on each line). At a
// terminal, the answer may also be typed there: it goes to the door as the operator's message
// on the task.
void ask_question(const TaskView& t, const door_handle& door) {
  std::cerr << terminal_safe_for(2, "the task waits for your answer: " + t.status_text + "\nanswer it with: mur answer " +
                                      t.id + " \"…\"")
            << std::endl;
  if (!door) return;
  ask_at_terminal("answer> ", [door, t](std::string line) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) return ask_question(t, door); // nothing typed: ask again
    DoorRequest answer;
    answer.method = DoorMethod::send_message;
    answer.task_id = t.id;
    answer.question = t.status_text; // a question answered meanwhile (mur answer) is not answered twice
    answer.text = std::move(line);
    answer.return_immediately = true;
    answer.verdict.kind = DoorAuthorization::Kind::Ok;
    answer.verdict.credential = "operator"; // the person at this process's own terminal
    answer.verdict.scopes = DoorScopes::all();
    caf::anon_send(door, std::move(answer));
  });
}

// Waiting: the result writer (the supervisor port) hands on the launch task's ending, whose
// answer is printed once, and `(ended_atom, member, code)`, which ends the wait with the
// session's exit code. Tasks' results are the writer's (member/result_writer.hpp).
std::int32_t wait_for_end(caf::scoped_actor& self, const RunCapsuleOptions& o, bool has_launch_task, const member_handle& member) {
  door_handle door; // where an answer typed at the terminal goes
  if (has_launch_task)
    self->request(member, caf::infinite, caf::get_atom_v).receive([&](const door_handle& d) { door = d; }, [](const caf::error&) {});
  std::int32_t code = 0;
  bool ended = false;
  bool printed = false;
  self->receive_while([&] { return !ended; })(
    [&](ended_atom, const std::string&, std::int32_t c) {
      code = c;
      ended = true;
    },
    [&](const TaskEvent& ev) { // the launch task's ending, or a question it waits on
      if (ev.task.state == TaskState::input_required && has_launch_task && !printed) return ask_question(ev.task, door);
      if (!is_terminal(ev.task.state) || printed || !has_launch_task) return;
      printed = true;
      print_answer(o, ev.task);
    });
  return code;
}

// After the member ended: the server stops, the record goes, the trace is complete.
void close_session(caf::scoped_actor& self, Session& s, JoinedFormation& formation) {
  if (s.front) s.front->stop();
  s.server->stop();
  remove_running_record(s.id);
  leave_formation(formation);
  if (s.children) self->send_exit(s.children, caf::exit_reason::user_shutdown);
  if (s.tools) self->send_exit(s.tools, caf::exit_reason::user_shutdown); // its servers end with it
  if (s.child_processes) s.child_processes->end_all(std::chrono::seconds(25)); // none outlives the session
  if (s.live) self->send_exit(s.live, caf::exit_reason::user_shutdown); // its children's slots, once they are gone
  // Every trace line sent before the member ended is written once the recorder answers.
  self->request(s.trace, std::chrono::seconds(5), trace_atom_v)
    .receive([](const std::vector<std::string>&) {}, [](const caf::error&) {});
  if (s.otel) s.otel->finish(self, s.trace); // the spans of those lines: a short, bounded final flush
  self->send_exit(s.network, caf::exit_reason::user_shutdown);
  self->send_exit(s.trace, caf::exit_reason::user_shutdown);
  self->send_exit(s.model, caf::exit_reason::user_shutdown);
}

} // namespace

int run_capsule(const Manifest& m, const RunCapsuleOptions& o) {
  block_session_signals(); // before any thread starts
  LaunchOptions launch;
  launch.task = o.task;
  launch.entry = o.formation_entry;
  launch.task_acceptance = o.task_acceptance;
  launch.after_task = o.after_task;
  acceptance_for(m, launch); // a wrong override is refused before anything starts
  // The descriptor limit raised to its hard limit, and the door's connection ceiling below it
  // (E-RUN-054 for a bad MURMUR_MAX_CONNECTIONS), before anything starts.
  const std::size_t door_connections = door_connection_ceiling(raise_open_file_limit());

  // A delegated child reads its grant before anything else (no thread runs yet).
  std::optional<SpawnGrant> grant;
  if (o.spawn_grant_stdin) grant = read_grant_from_stdin();

  // Its formation, as the environment names it (its channel is read once the member is sealed).
  std::optional<FormationEnv> formation_env = grant ? std::nullopt : read_formation_env_once();
  launch.session_id = ids::mint(ids::session);
  // Its limits hold it, and all it will start, from before its first thread.
  const MemberCgroup limits = enter_member_limits(m, launch.session_id);
  struct LeaveGroup { // when the session ends, and when it fails to start
    const MemberCgroup& group;
    ~LeaveGroup() { leave_member_cgroup(group); }
  } leave{limits};
  // Sealed as its programs are, before its first thread (member/member_seal.hpp).
  MemberPlace place;
  place.workdir = o.workdir.empty() ? current_dir() : o.workdir;
  if (::mkdir(place.workdir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Failure("E-RUN-007", "cannot create the working directory " + place.workdir + " (" + std::strerror(errno) + ")",
                  unwritable_dir_fix(place.workdir));
  place.session_id = launch.session_id;
  place.live_dir = grant ? grant->live_dir : formation_env ? formation_live_dir(formation_env->formation_id) : std::string();
  place.store_root = o.store_root;
  seal_member_runtime(m, place);

  // Joining the formation (outside one, nothing happens); a child only takes the formation's id.
  JoinedFormation formation = grant ? join_as_child() : join_formation(std::move(formation_env));
  launch.formation_id = formation.id;
  launch.bundle = formation.bundle;

  caf::actor_system_config cfg;
  register_message_types(cfg);
  // One scheduler thread: a member's actors pass a task along a chain (door, task, model, trace,
  // door), never computing in parallel, so a second worker only adds hand-overs between threads
  // (work stealing, polling, wake-ups). Measured on the 2-core box (tests/bench, blocking
  // SendMessage at 16 connections): one worker served as many or more requests per second at
  // less CPU per request. Nothing in the process blocks a worker: HTTP calls run on the curl
  // pool's thread, the door server on its own asio thread, signals on the signal watch's.
  cfg.set("scheduler.max-threads", 1);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  const auto waiter = caf::actor_cast<supervisor_port>(self); // wait_for_end handles what reaches it

  Session session = serve(sys, waiter, m, o, launch, formation, grant ? &*grant : nullptr, door_connections, limits);
  grant.reset(); // the key lives on only inside the door's issuer
  attach_member(formation, session.member);
  // The entry of a formation shares the terminal's process group with its launcher: a Ctrl-C
  // reaches both, and the launcher's teardown (the lifeline closing) is what ends the entry, so
  // that it records formation_ended like every other member. SIGTERM and SIGHUP still end it.
  const bool launcher_handles_ctrl_c = o.formation_entry && formation.has_lifeline;
  SignalWatch signals([member = session.member, launcher_handles_ctrl_c](int sig) {
    if (sig == SIGINT && launcher_handles_ctrl_c) return;
    caf::anon_send(member, sigterm_atom_v);
  });
  const std::int32_t code = wait_for_end(self, o, !launch.task.empty(), session.member);
  signals.stop();
  close_session(self, session, formation);
  end_program_starter();
  return code;
}

} // namespace mur
