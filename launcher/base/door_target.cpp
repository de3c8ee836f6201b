#include "launcher/base/door_target.hpp"

#include "http/a2a_json.hpp"
#include "http/jsonrpc_call.hpp"
#include "launcher/base/launcher_record.hpp"
#include "member/running_record.hpp"
#include "messages/credentials/address_line.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/strict_json.hpp"

namespace mur {

using json = nlohmann::json;

DoorTarget find_door(const std::string& target, const TargetCodes& codes) {
  const std::string unknown = codes.unknown;
  if (ids::is_valid(target, ids::session)) {
    auto rec = read_running_record(target);
    if (!rec || !record_is_live(*rec))
      throw Failure(unknown, "no running session " + target, "list running sessions with mur ps");
    return {rec->url, rec->operator_token, rec->session_id, rec->formation_id, rec->workdir};
  }
  if (ids::is_valid(target, ids::formation)) { // the formation's entry member, named by its launcher record
    auto launcher = read_launcher_record(target);
    if (launcher && launcher_is_live(*launcher))
      for (const auto& rec : list_running_records())
        if (rec.formation_id == target && rec.formation_member == launcher->entry && record_is_live(rec))
          return {rec.url, rec.operator_token, rec.session_id, rec.formation_id, rec.workdir};
    throw Failure(unknown, "no running formation " + target + " with its entry member serving",
                  "list running formations with mur ps");
  }
  std::string url = target;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (!is_door_url(url))
    throw Failure(unknown, "TARGET must be ses_…, frm_… or http://host:port", codes.help);
  // The URL mur ps shows: the session serving it is called with its record's credential.
  std::string loopback = url;
  if (loopback.rfind("http://localhost:", 0) == 0) loopback = "http://127.0.0.1:" + url.substr(17);
  for (const auto& rec : list_running_records())
    if (rec.url == loopback && record_is_live(rec)) return {rec.url, rec.operator_token, rec.session_id, rec.formation_id, rec.workdir};
  return {url, std::nullopt, {}, {}, {}};
}

HttpCall door_call(const DoorTarget& door, const json& request) {
  HttpCall c;
  c.url = door.url + "/";
  c.body = request.dump();
  c.headers = {"Content-Type: application/json", "A2A-Version: 1.0"};
  if (door.token) c.headers.push_back("Authorization: Bearer " + door.token->expose());
  return c;
}

HttpOutcome call_door(CurlPool& pool, const DoorTarget& door, const json& request, TaskView* task) {
  HttpCall c = door_call(door, request);
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

DoorTarget door_holding(CurlPool& pool, const std::string& task_id, const char* code) {
  for (const auto& rec : list_running_records()) {
    if (!record_is_live(rec) || !rec.operator_token) continue;
    DoorTarget door{rec.url, rec.operator_token, rec.session_id, rec.formation_id, rec.workdir};
    DoorRequest get;
    get.method = DoorMethod::get_task;
    get.task_id = task_id;
    HttpOutcome w = call_door(pool, door, a2a::request_json("find-task", get));
    if (w.status == 0) continue;
    DoorReply r = a2a::door_reply_from(w.status, w.body);
    if (r.ok() && r.task.id == task_id) return door;
  }
  throw Failure(code, "no running session holds task " + task_id,
                "list running sessions with mur ps; a task is forgotten some time after it ends");
}

DoorReply reply_of(const HttpOutcome& w, const TargetCodes& codes) {
  if (w.status == 0)
    throw Failure(codes.unreachable, "the door could not be reached (" + w.error + ")",
                  "check that the session still runs: mur ps");
  return a2a::door_reply_from(w.status, w.body);
}

} // namespace mur
