#include "launcher/cli/cmd_send.hpp"
#include "launcher/cli/cmd_cancel.hpp"
#include "launcher/base/door_target.hpp"
#include "launcher/base/task_follow.hpp"
#include "messages/vocabulary/duration.hpp"
#include "messages/vocabulary/terminal_text.hpp"
#include "messages/vocabulary/trace_context.hpp"

#include "actors/egress.hpp"
#include "http/a2a_json.hpp"
#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/cancel_confirm.hpp"
#include "os/signal_watch.hpp"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <iostream>
#include <mutex>
#include <thread>

namespace mur {
namespace {

using json = nlohmann::json;

void refuse_on(const DoorReply& r) {
  if (r.refused())
    throw Failure("E-SND-003", "the door refused the task: " + to_string(r.refusal) + ": " + r.refusal_message,
                  "send to a session you started (its running record holds the operator credential)");
  if (r.rpc_code != 0)
    throw Failure("E-SND-003", "the door answered error " + std::to_string(r.rpc_code) + ": " + r.rpc_message,
                  "check the capsule's lifecycle.task_acceptance");
}

// The command that shows a task of `door` once it has ended: a formation's trace is found from
// anywhere; a lone session's from its work directory once it no longer runs.
std::string trace_command(const DoorTarget& door) {
  if (!door.formation_id.empty()) return "mur trace show " + door.formation_id + " --full";
  if (door.session_id.empty()) return "";
  std::string here;
  if (char* cwd = ::getcwd(nullptr, 0)) {
    here = cwd;
    std::free(cwd);
  }
  std::error_code ec;
  const bool elsewhere = !door.workdir.empty() && !std::filesystem::equivalent(door.workdir, here, ec);
  return "mur trace show " + door.session_id + " --full" + (elsewhere ? " (run in " + door.workdir + ")" : "");
}

// Waits for `task` at `door` until it ends (following it over SubscribeToTask), printing what a
// task that waits for input asks; giving up is E-SND-005 (--timeout) or E-SND-006 (lost).
TaskView wait_for(CurlPool& pool, const DoorTarget& door, const TaskView& task, bool as_json,
                  std::chrono::steady_clock::time_point began, std::optional<std::chrono::milliseconds> timeout,
                  std::chrono::milliseconds stream_for) {
  using Clock = std::chrono::steady_clock;
  FollowLimits limits;
  limits.stream_for = stream_for;
  if (timeout) limits.deadline = began + *timeout;
  FollowWatch watch;
  if (!as_json) {
    watch.on_change = [](const TaskView& t) {
      if (t.state == TaskState::input_required)
        std::cerr << terminal_safe_for(2, "the task waits for your answer: " + t.status_text + "\nanswer it with: mur answer " +
                                            t.id + " \"…\"")
                  << std::endl;
    };
    watch.on_broken = [](const std::string& why) {
      std::cerr << terminal_safe_for(2, "mur send: the task's stream broke (" + why + "); following it again") << std::endl;
    };
    watch.on_renew = [began]() {
      const auto waited = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - began);
      std::cerr << "mur send: still waiting after " << format_duration(waited)
                << " (the task works on; Ctrl-C cancels it, --timeout bounds the wait)" << std::endl;
    };
  }
  const FollowEnd end = follow_task(pool, door, task, limits, watch);
  if (end.why == FollowEnd::Why::ended) return end.task;
  const std::string later = trace_command(door);
  const std::string see = later.empty() ? "read it later with A2A GetTask at " + door.url
                                        : "see its answer once it has ended: " + later;
  if (end.why == FollowEnd::Why::timed_out)
    throw Failure("E-SND-005", "mur send stopped waiting for task " + task.id + " after " + format_duration(*timeout) +
                                 " (--timeout); the task is " + state_word(end.task.state) + " and goes on at the door",
                  see + "; cancel it: mur cancel " + task.id + "; or wait longer with a larger --timeout (or none)");
  throw Failure("E-SND-006", "mur send stopped waiting for task " + task.id + ": it could not follow it again (" + end.reason +
                               "); if its session still runs, the task goes on",
                "check that the session still runs: mur ps; " + see);
}

} // namespace

// Ctrl-C (or SIGTERM, SIGHUP) while the task runs cancels it at the door, down the whole tree,
// prints what was canceled and exits 130; before the door took the task, only exits 130.
class CancelOnSignal {
public:
  explicit CancelOnSignal(DoorTarget door)
    : door_(std::move(door)), watch_([this](int) { on_signal(); }) {}
  void held(const std::string& task_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    task_id_ = task_id;
  }
  void ended() { watch_.stop(); }

private:
  void on_signal() {
    std::string id;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      id = task_id_;
    }
    if (id.empty()) {
      std::cerr << "mur send: interrupted before the door took the task\n";
      std::_Exit(130);
    }
    std::cerr << "mur send: canceling " << id << " and every call it has out…\n";
    try {
      CurlPool pool;
      DoorReply r = cancel_task_at(pool, door_, id, default_confirm_ms, send_codes);
      if (r.ok()) std::cerr << terminal_safe_for(2, canceled_line(r.task)) << "\n";
      else std::cerr << "mur send: the cancel was not accepted: " << (r.refused() ? to_string(r.refusal) : r.rpc_message) << "\n";
    } catch (const std::exception& e) {
      std::cerr << "mur send: the cancel did not reach the door: " << e.what() << "\n";
    }
    std::_Exit(130);
  }

  DoorTarget door_;
  std::mutex mutex_;
  std::string task_id_;
  SignalWatch watch_;
};

int cmd_send(const std::string& target, const std::string& text, bool as_json, bool wait,
             std::optional<std::chrono::milliseconds> timeout, const std::string& context) {
  const auto began = std::chrono::steady_clock::now();
  const auto stream_for = send_stream_for(); // a bad MURMUR_SEND_STREAM_SECS is refused before anything is sent
  const DoorTarget door = find_door(target);
  block_session_signals(); // before the curl pool's thread starts: only the watch takes them
  CancelOnSignal on_signal(door);
  CurlPool pool;
  DoorRequest send;
  send.method = DoorMethod::send_message;
  send.text = text;
  send.message_id = ids::mint(ids::message);
  send.context_id = context; // "" ⇒ the door mints one; printed below so the conversation can go on
  send.return_immediately = true; // the task's id at once, so that Ctrl-C can cancel it; then followed
  // The caller's trace, when its environment carries one (TRACEPARENT, the OpenTelemetry carrier
  // for processes): the task joins it (docs/observability.md §Propagation). One not of the W3C form is not sent.
  if (const char* tp = std::getenv("TRACEPARENT"); tp != nullptr && parse_traceparent(tp)) send.traceparent = tp;
  DoorReply sent = reply_of(call_door(pool, door, a2a::request_json("send-1", send)));
  refuse_on(sent);
  // Busy: refused with its code, or (--wait) offered again as call-member does — 250 ms doubling
  // to 4 s, with jitter (actors/egress.hpp) — until the door takes it.
  for (int offers = 1; sent.task.state == TaskState::rejected && sent.task.busy; ++offers) {
    if (!wait)
      throw Failure("E-SND-004", "the door is busy: it is working on another task and did not take this one",
                    "send it again when its task has ended, or add --wait to keep offering it until it is taken");
    if (offers == 1 && !as_json) std::cerr << "the door is busy; offering the task again until it is taken (Ctrl-C to give up)\n";
    const auto next = std::chrono::steady_clock::now() + reoffer_delay(send.message_id, offers);
    if (timeout && next >= began + *timeout)
      throw Failure("E-SND-005", "mur send stopped after " + format_duration(*timeout) +
                                   " (--timeout): the door was still busy and never took the task",
                    "send it again once the door's task has ended, or with a longer --timeout");
    std::this_thread::sleep_until(next);
    sent = reply_of(call_door(pool, door, a2a::request_json("send-1", send)));
    refuse_on(sent);
  }
  TaskView task = sent.task;
  on_signal.held(task.id);
  if (!is_terminal(task.state)) task = wait_for(pool, door, task, as_json, began, timeout, stream_for);
  on_signal.ended();
  if (as_json) {
    json out{{"task_id", task.id}, {"context_id", task.context_id.empty() ? sent.task.context_id : task.context_id},
             {"state", state_word(task.state)}};
    out["answer"] = task.state == TaskState::completed ? task.answer : task.status_text;
    std::cout << out.dump() << std::endl;
  } else {
    if (task.state == TaskState::completed)
      std::cout << terminal_safe_for(1, task.answer) << std::endl;
    else
      std::cerr << "the task ended " << state_word(task.state) << (task.status_text.empty() ? "" : ": " + task.status_text)
                << "\n";
    // How to go on in the same conversation (a threaded member continues it).
    const std::string& ctx = task.context_id.empty() ? sent.task.context_id : task.context_id;
    if (!ctx.empty()) std::cerr << "context: " << terminal_safe_for(2, ctx) << " (mur send --context " << terminal_safe_for(2, ctx)
                                << " to continue it, if the member is threaded)\n";
  }
  return task.state == TaskState::completed ? 0 : 1;
}

} // namespace mur
