#include "member/run_capsule.hpp"
#include "messages/message_types.hpp"

#include "actors/atoms.hpp"
#include "actors/member.hpp"
#include "actors/trace_recorder.hpp"
#include "http/curl_pool.hpp"
#include "http/door_network.hpp"
#include "http/door_server.hpp"
#include "member/channel_reader.hpp"
#include "member/formation_env.hpp"
#include "member/lifeline_watch.hpp"
#include "member/manifest.hpp"
#include "member/process_start.hpp"
#include "member/running_record.hpp"
#include "member/script_model.hpp"
#include "member/session_dir.hpp"
#include "member/signal_watch.hpp"
#include "messages/address_line.hpp"
#include "messages/door_request.hpp"
#include "messages/door_scope.hpp"
#include "messages/door_token.hpp"
#include "messages/failure.hpp"
#include "messages/formation_channel.hpp"
#include "messages/formation_verifier.hpp"
#include "messages/ids.hpp"
#include "messages/model_turn.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <future>
#include <iostream>
#include <mutex>
#include <unistd.h>

namespace mur {
namespace {

using json = nlohmann::json;
using result_atom = caf::atom_constant<caf::atom("taskend")>;

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

std::string task_text(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  std::ifstream in(arg.substr(1));
  if (!in) throw Failure("E-RUN-009", "cannot read the task file " + arg.substr(1), "pass --task TEXT or @FILE of a readable file");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

AcceptancePolicy acceptance_of(const Manifest& m, const RunCapsuleOptions& o) {
  AcceptancePolicy a;
  TaskAcceptance kind = m.lifecycle.task_acceptance;
  if (o.task_acceptance) {
    if (*o.task_acceptance == "none") kind = TaskAcceptance::none;
    else if (*o.task_acceptance == "single") kind = TaskAcceptance::single;
    else if (*o.task_acceptance == "queue") kind = TaskAcceptance::queue;
    else throw Failure("E-RUN-010", "--lifecycle-task-acceptance must be none, single or queue", "fix the flag");
  }
  a.kind = kind == TaskAcceptance::none    ? AcceptancePolicy::Kind::none
           : kind == TaskAcceptance::queue ? AcceptancePolicy::Kind::queue
                                           : AcceptancePolicy::Kind::single;
  a.queue_depth = m.lifecycle.queue_depth;
  bool exit_after = m.lifecycle.after_task == AfterTask::exit;
  if (o.after_task) {
    if (*o.after_task == "exit") exit_after = true;
    else if (*o.after_task == "sleep") exit_after = false;
    else throw Failure("E-RUN-010", "--lifecycle-after-task must be exit or sleep", "fix the flag");
  }
  a.exit_after_task = exit_after;
  a.retention.max_tasks = static_cast<std::size_t>(m.lifecycle.retain_tasks_max);
  a.retention.max_age = m.lifecycle.retain_tasks_max_age;
  return a;
}

// What reaches the member from other threads before (and after) it exists.
class MemberLink {
public:
  void post(std::function<void(const caf::actor&)> f) {
    std::lock_guard<std::mutex> lock(mu_);
    if (member_) f(member_);
    else queued_.push_back(std::move(f));
  }
  void attach(caf::actor m) {
    std::lock_guard<std::mutex> lock(mu_);
    member_ = std::move(m);
    for (auto& f : queued_) f(member_);
    queued_.clear();
  }

private:
  std::mutex mu_;
  caf::actor member_;
  std::vector<std::function<void(const caf::actor&)>> queued_;
};

// The formation side of a member process: bundle, later address lines, lifeline.
struct Formation {
  std::string id;
  std::shared_ptr<const FormationBundle> bundle;
  std::unique_ptr<ChannelReader> channel;
  std::unique_ptr<LifelineWatch> lifeline;
};

Formation join_formation(const std::shared_ptr<MemberLink>& link) {
  Formation f;
  auto env = read_formation_env_once();
  if (!env) return f;
  f.id = env->formation_id;
  if (env->channel_fd) {
    auto first = std::make_shared<std::promise<std::string>>();
    auto got = first->get_future();
    ChannelReader::Handlers h;
    h.first_line = [first](std::string line) { first->set_value(std::move(line)); };
    h.failed = [first](const Failure& refusal) { first->set_exception(std::make_exception_ptr(refusal)); };
    h.line = [link](std::string line) {
      try {
        std::vector<MemberText> addresses;
        for (auto& a : parse_address_line(line)) addresses.push_back({a.name, a.url});
        link->post([addresses](const caf::actor& m) { caf::anon_send(m, address_atom::value, addresses); });
      } catch (const ChannelLineRefused& e) {
        std::cerr << "warning: an address line was refused: " << e.what() << "\n";
      }
    };
    h.bad_line = [](const std::string& reason) { std::cerr << "warning: a formation channel line was refused: " << reason << "\n"; };
    h.closed = [] {};
    f.channel = std::make_unique<ChannelReader>(UniqueFd(*env->channel_fd), h);
    std::string line = got.get(); // throws the E-RUN-046 refusal
    try {
      f.bundle = std::make_shared<const FormationBundle>(parse_bundle(line, f.id));
    } catch (const ChannelLineRefused& e) {
      throw Failure("E-RUN-046", std::string("the formation channel's first line was refused: ") + e.what(),
                    "start members only through mur run --roster");
    }
  }
  if (env->lifeline_fd) {
    f.lifeline = std::make_unique<LifelineWatch>(UniqueFd(*env->lifeline_fd), [link] {
      link->post([](const caf::actor& m) { caf::anon_send(m, lifeline_atom::value); });
    });
  } else {
    std::cerr << "warning[W-RUN-007]: this session is in formation " << f.id
              << " but has no lifeline; it will not end with the formation\n";
  }
  return f;
}

DoorRequest operator_request(const std::string& method, const std::string& task_id) {
  DoorRequest r;
  r.method = method;
  r.task_id = task_id;
  r.verdict.kind = DoorAuthorization::Kind::Ok;
  r.verdict.credential = std::string(OPERATOR_CREDENTIAL);
  for (auto s : DOOR_SCOPES) r.verdict.scopes.emplace_back(s);
  return r;
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
  std::cerr << "  send it a task: mur send " << ses << " \"…\"; stop it with Ctrl-C\n";
}

void print_answer(const RunCapsuleOptions& o, const TaskView& t) {
  if (o.json) {
    std::cout << json{{"task_id", t.id}, {"state", state_word(t.state)}, {"answer", result_text(t)}}.dump() << std::endl;
  } else if (t.state == TaskState::completed) {
    std::cout << t.answer << std::endl;
  } else {
    std::cerr << "the task ended " << state_word(t.state) << ": " << result_text(t) << "\n";
  }
}

} // namespace

int run_capsule(const Manifest& m, const RunCapsuleOptions& o) {
  block_session_signals(); // before any thread starts
  if (m.inference.transport != Transport::script)
    throw Failure("E-RUN-050", "the inference transport '" + std::string(to_string(m.inference.transport)) +
                                 "' is not available in this build yet",
                  "use transport: script (or leave inference out) for now");
  const std::string launch_task = task_text(o.task);
  const AcceptancePolicy acceptance = acceptance_of(m, o);

  auto link = std::make_shared<MemberLink>();
  Formation formation = join_formation(link);

  const std::string ses = ids::mint(ids::session);
  const std::string workdir = o.workdir.empty() ? current_dir() : o.workdir;
  const SessionDir dir = make_session_dir(workdir, ses);

  auto issuer = std::make_shared<DoorTokenIssuer>();
  std::vector<DoorGrant> grants;
  if (m.authentication)
    for (const auto& c : m.authentication->credentials) grants.push_back({c.name, c.scopes});
  std::optional<DoorToken> operator_token;
  try {
    auto issued = issuer->issue(grants);
    if (m.authentication) operator_token = issued.at(0).token;
  } catch (const std::invalid_argument& e) {
    throw Failure("E-MAN-002", std::string("network.authentication.credentials: ") + e.what(), "fix the manifest");
  }

  caf::actor_system_config cfg;
  register_message_types(cfg);
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  const caf::actor me = caf::actor_cast<caf::actor>(self);

  auto pool = std::make_shared<CurlPool>();
  auto network = spawn_door_network(sys, pool);
  auto sink = trace_file_sink(dir, [me](const std::string& line) {
    if (line.find("\"event_type\":\"task_end\"") == std::string::npos) return;
    auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("task_id") && j["task_id"].is_string())
      caf::anon_send(me, result_atom::value, j["task_id"].get<std::string>());
  });
  auto trace = spawn_trace_recorder(sys, ses, sink);
  auto model = spawn_script_model(sys, m.inference);

  MemberSetup ms;
  ms.session_id = ses;
  ms.capsule_name = m.name;
  ms.capsule_version = m.version;
  ms.formation_id = formation.id;
  ms.member = formation.bundle ? formation.bundle->member : "";
  ms.bundle = formation.bundle;
  ms.acceptance = acceptance;
  ms.authenticated = m.authentication.has_value();
  ms.accepts_peer_tasks = m.accepts_peer_tasks;
  ms.allows_localhost = m.allows_localhost();
  ms.max_turns = m.inference.max_turns;
  ms.call_deadline = std::chrono::seconds(m.lifecycle.delegation_deadline_secs);
  ms.launch_task = launch_task;
  ms.trace = trace;
  ms.network = network;
  ms.model = model;
  ms.supervisor = me;
  auto member = spawn_member(sys, std::move(ms));

  caf::actor door;
  self->request(member, caf::infinite, caf::get_atom::value)
    .receive([&](const caf::actor& d) { door = d; },
             [&](const caf::error& e) { throw Failure("E-RUN-049", "the session did not start: " + sys.render(e), "report this bug"); });

  DoorServerSetup ds;
  ds.system = &sys;
  ds.door = door;
  ds.door_tokens = issuer;
  if (formation.bundle)
    ds.formation = std::make_shared<FormationVerifier>(formation.id, formation.bundle->member, formation.bundle->verify_key);
  ds.card.capsule_name = m.name;
  ds.card.capsule_version = m.version;
  ds.card.session_id = ses;
  ds.card.authenticated = m.authentication.has_value();
  ds.card.accepts_peer_tasks = m.accepts_peer_tasks;
  ds.card.takes_tasks = acceptance.kind != AcceptancePolicy::Kind::none;
  auto server = std::make_unique<DoorServer>(std::move(ds));

  RunningRecord rec;
  rec.session_id = ses;
  rec.pid = ::getpid();
  rec.process_start = process_start_of(::getpid());
  rec.url = server->url();
  rec.capsule_name = m.name;
  rec.capsule_version = m.version;
  rec.workdir = workdir;
  rec.formation_id = formation.id;
  rec.formation_member = formation.bundle ? formation.bundle->member : "";
  rec.formation_lifeline = formation.lifeline != nullptr;
  if (formation.bundle) rec.formation_launcher = formation.bundle->launcher;
  rec.started_at = now_ms();
  rec.operator_token = operator_token;
  write_running_record(rec);
  print_ready(o, m, ses, server->url(), workdir, formation.id);

  link->attach(member);
  SignalWatch signals([member](int) { caf::anon_send(member, sigterm_atom::value); });

  std::int32_t code = 0;
  bool ended = false;
  bool printed = false;
  std::string launch_id;
  auto finished = [&](const TaskView& t) {
    if (!is_terminal(t.state)) return;
    write_result(dir, t);
    // The member reports its launch task's ending itself; the door may already be gone if the
    // task was that quick, so an unknown launch id means this is it.
    if (!printed && !launch_task.empty() && (launch_id.empty() || t.id == launch_id)) {
      printed = true;
      print_answer(o, t);
    }
  };
  auto follow = [&](const std::string& task_id) { // TaskEvents of it come here until it ends
    self->request(door, std::chrono::seconds(5), operator_request("SubscribeToTask", task_id))
      .receive([&](const DoorReply& r) { if (r.ok()) finished(r.task); }, [](const caf::error&) {});
  };
  if (!launch_task.empty()) { // the member handed the door its launch task before answering us
    self->request(door, std::chrono::seconds(5), caf::get_atom::value)
      .receive([&](const std::vector<TaskView>& tasks) { if (!tasks.empty()) launch_id = tasks.front().id; },
               [](const caf::error&) {});
    if (!launch_id.empty()) follow(launch_id);
  }
  self->receive_while([&] { return !ended; })(
    [&](ended_atom, const std::string&, std::int32_t c) {
      code = c;
      ended = true;
    },
    [&](const TaskEvent& ev) { finished(ev.task); },
    [&](result_atom, const std::string& task_id) { follow(task_id); });

  signals.stop();
  server->stop();
  remove_running_record(ses);
  if (formation.channel) formation.channel->stop();
  if (formation.lifeline) formation.lifeline->stop();
  // Every trace line sent before the member ended is written once the recorder answers.
  self->request(trace, std::chrono::seconds(5), trace_atom::value)
    .receive([](const std::vector<std::string>&) {}, [](const caf::error&) {});
  for (const auto& a : {network, trace, model}) self->send_exit(a, caf::exit_reason::user_shutdown);
  return code;
}

} // namespace mur
