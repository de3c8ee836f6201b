#include "launcher/cli/cmd_send.hpp"
#include "messages/vocabulary/terminal_text.hpp"

#include "actors/egress.hpp"
#include "http/a2a_json.hpp"
#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"
#include "launcher/base/launcher_record.hpp"
#include "member/running_record.hpp"
#include "messages/credentials/address_line.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/strict_json.hpp"

#include <iostream>
#include <thread>

namespace mur {
namespace {

using json = nlohmann::json;

struct Door {
  std::string url;
  std::optional<DoorToken> token;
};

Door find_door(const std::string& target) {
  if (ids::is_valid(target, ids::session)) {
    auto rec = read_running_record(target);
    if (!rec || !record_is_live(*rec))
      throw Failure("E-SND-001", "no running session " + target, "list running sessions with mur ps");
    return {rec->url, rec->operator_token};
  }
  if (ids::is_valid(target, ids::formation)) { // the formation's entry member, named by its launcher record
    auto launcher = read_launcher_record(target);
    if (launcher && launcher_is_live(*launcher))
      for (const auto& rec : list_running_records())
        if (rec.formation_id == target && rec.formation_member == launcher->entry && record_is_live(rec))
          return {rec.url, rec.operator_token};
    throw Failure("E-SND-001", "no running formation " + target + " with its entry member serving",
                  "list running formations with mur ps");
  }
  std::string url = target;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (!is_door_url(url))
    throw Failure("E-SND-001", "TARGET must be ses_…, frm_… or http://host:port", "see mur send --help");
  // The URL mur ps shows: the session serving it is called with its record's credential.
  std::string loopback = url;
  if (loopback.rfind("http://localhost:", 0) == 0) loopback = "http://127.0.0.1:" + url.substr(17);
  for (const auto& rec : list_running_records())
    if (rec.url == loopback && record_is_live(rec)) return {rec.url, rec.operator_token};
  return {url, std::nullopt};
}

// One call, waited for; an event stream's results are folded into `task` as they arrive (on the
// pool's thread, before the call ends: this thread reads `task` only after call_and_wait).
using Waited = HttpOutcome;

Waited call(CurlPool& pool, const Door& door, const json& request, TaskView* task = nullptr) {
  HttpCall c;
  c.url = door.url + "/";
  c.body = request.dump();
  c.headers = {"Content-Type: application/json", "A2A-Version: 1.0"};
  if (door.token) c.headers.push_back("Authorization: Bearer " + door.token->expose());
  if (task) {
    c.timeout = std::chrono::milliseconds(0);
    c.on_event = [task](const std::string& data) {
      auto doc = parse_bounded_json(data).value_or(json(json::value_t::discarded));
      if (doc.is_object() && doc.contains("result")) {
        try {
          a2a::apply_stream_event(*task, doc["result"]);
        } catch (const std::exception&) {
        }
      }
    };
  }
  return call_and_wait(pool, std::move(c));
}

DoorReply reply_of(const Waited& w) {
  if (w.status == 0)
    throw Failure("E-SND-002", "the door could not be reached (" + w.error + ")", "check that the session still runs: mur ps");
  return a2a::door_reply_from(w.status, w.body);
}

void refuse_on(const DoorReply& r) {
  if (r.refused())
    throw Failure("E-SND-003", "the door refused the task: " + to_string(r.refusal) + ": " + r.refusal_message,
                  "send to a session you started (its running record holds the operator credential)");
  if (r.rpc_code != 0)
    throw Failure("E-SND-003", "the door answered error " + std::to_string(r.rpc_code) + ": " + r.rpc_message,
                  "check the capsule's lifecycle.task_acceptance");
}

} // namespace

int cmd_send(const std::string& target, const std::string& text, bool as_json, bool wait) {
  const Door door = find_door(target);
  CurlPool pool;
  DoorRequest send;
  send.method = DoorMethod::send_message;
  send.text = text;
  send.message_id = ids::mint(ids::message);
  DoorReply sent = reply_of(call(pool, door, a2a::request_json("send-1", send)));
  refuse_on(sent);
  // Busy: refused with its code, or (--wait) offered again as call-member does — 250 ms doubling
  // to 4 s, with jitter (actors/egress.hpp) — until the door takes it.
  for (int offers = 1; sent.task.state == TaskState::rejected && sent.task.busy; ++offers) {
    if (!wait)
      throw Failure("E-SND-004", "the door is busy: it is working on another task and did not take this one",
                    "send it again when its task has ended, or add --wait to keep offering it until it is taken");
    if (offers == 1 && !as_json) std::cerr << "the door is busy; offering the task again until it is taken (Ctrl-C to give up)\n";
    std::this_thread::sleep_for(reoffer_delay(send.message_id, offers));
    sent = reply_of(call(pool, door, a2a::request_json("send-1", send)));
    refuse_on(sent);
  }
  TaskView task = sent.task;
  if (!is_terminal(task.state)) {
    DoorRequest sub;
    sub.method = DoorMethod::subscribe_to_task;
    sub.task_id = task.id;
    TaskView followed;
    Waited w = call(pool, door, a2a::request_json("send-2", sub), &followed);
    if (!followed.id.empty()) task = followed;
    if (w.status == 200 && followed.id.empty()) {
      DoorReply r = a2a::door_reply_from(w.status, w.body); // an error before the stream started
      if (r.ok()) task = r.task;
    }
    for (int n = 3; !is_terminal(task.state); ++n) { // the stream ended early or failed: read, then poll
      if (n > 3) std::this_thread::sleep_for(std::chrono::milliseconds(500));
      DoorRequest get;
      get.method = DoorMethod::get_task;
      get.task_id = task.id;
      DoorReply r = reply_of(call(pool, door, a2a::request_json("send-" + std::to_string(n), get)));
      refuse_on(r);
      task = r.task;
    }
  }
  if (as_json) {
    json out{{"task_id", task.id}, {"state", state_word(task.state)}};
    out["answer"] = task.state == TaskState::completed ? task.answer : task.status_text;
    std::cout << out.dump() << std::endl;
  } else if (task.state == TaskState::completed) {
    std::cout << terminal_safe_for(1, task.answer) << std::endl;
  } else {
    std::cerr << "the task ended " << state_word(task.state) << (task.status_text.empty() ? "" : ": " + task.status_text)
              << "\n";
  }
  return task.state == TaskState::completed ? 0 : 1;
}

} // namespace mur
