// member_wiring.cpp — see member_wiring.hpp.
#include "capsule/member_wiring.hpp"

#include "messages/vocabulary/failure.hpp"

#include <chrono>

namespace mur {

AcceptancePolicy acceptance_for(const Manifest& m, const LaunchOptions& o) {
  TaskAcceptance kind = m.lifecycle.task_acceptance;
  bool exit_after = m.lifecycle.after_task == AfterTask::exit;
  if (o.entry && !o.task.empty()) { // a launch task: the entry runs that one task, then exits
    kind = TaskAcceptance::single;
    exit_after = true;
  } else if (o.entry) { // serving: its own task_acceptance and queue_depth, but it always takes
    if (kind == TaskAcceptance::none) kind = TaskAcceptance::single; // tasks and never exits after one
    exit_after = false;
  }
  if (o.task_acceptance) {
    auto given = parse_task_acceptance(*o.task_acceptance);
    if (!given) throw Failure("E-RUN-010", "--lifecycle-task-acceptance must be none, single or queue", "fix the flag");
    kind = *given;
  }
  if (o.after_task) {
    auto given = parse_after_task(*o.after_task);
    if (!given) throw Failure("E-RUN-010", "--lifecycle-after-task must be exit or sleep", "fix the flag");
    exit_after = *given == AfterTask::exit;
  }
  AcceptancePolicy a;
  a.kind = kind == TaskAcceptance::none    ? AcceptancePolicy::Kind::none
           : kind == TaskAcceptance::queue ? AcceptancePolicy::Kind::queue
                                           : AcceptancePolicy::Kind::single;
  a.queue_depth = m.lifecycle.queue_depth;
  a.exit_after_task = exit_after;
  a.retention.max_tasks = static_cast<std::size_t>(m.lifecycle.retain_tasks_max);
  a.retention.max_age = m.lifecycle.retain_tasks_max_age;
  return a;
}

MemberSetup member_setup(const Manifest& m, const LaunchOptions& o, MemberPorts ports) {
  MemberSetup ms;
  ms.session_id = o.session_id;
  ms.capsule_name = m.name;
  ms.capsule_version = m.version;
  ms.formation_id = o.formation_id;
  ms.member = o.bundle ? o.bundle->member : "";
  ms.bundle = o.bundle;
  ms.acceptance = acceptance_for(m, o);
  ms.authenticated = m.authentication.has_value();
  ms.accepts_peer_tasks = m.accepts_peer_tasks;
  ms.allows_localhost = m.allows_localhost();
  ms.max_turns = m.inference.max_turns;
  ms.price = m.inference.price;
  ms.limits = m.limits;
  ms.max_depth = m.max_depth;
  ms.ask_operator = m.ask_operator;
  ms.input_timeout = std::chrono::seconds(m.lifecycle.input_timeout_secs);
  ms.threaded = m.lifecycle.conversation == Conversation::threaded;
  ms.capture = m.capture;
  ms.system_prompt = m.inference.system_prompt; // a system_prompt_file is read into it at start
  ms.call_deadline = std::chrono::seconds(m.lifecycle.delegation_deadline_secs);
  ms.launch_task = o.task;
  ms.trace = std::move(ports.trace);
  ms.network = std::move(ports.network);
  ms.model = std::move(ports.model);
  ms.supervisor = std::move(ports.supervisor);
  ms.ids = ports.ids;
  ms.children = std::move(ports.children);
  ms.live = std::move(ports.live);
  ms.tools = std::move(ports.tools);
  ms.own_tools = std::move(ports.own_tools);
  for (const auto& s : m.spawn_allow) ms.spawnable.push_back(SpawnTarget{s.name, s.version});
  return ms;
}

} // namespace mur
