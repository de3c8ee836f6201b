// task_follow.cpp — see task_follow.hpp.
#include "launcher/base/task_follow.hpp"

#include "http/a2a_json.hpp"
#include "http/jsonrpc_call.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/vocabulary/strict_json.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace mur {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// One SubscribeToTask call: what the pool's thread hands the waiting thread.
struct Subscription {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> events; // data payloads not read yet
  bool done = false;
  long status = 0;
  std::string body, error;
};

// How one stream ended.
struct StreamEnd {
  enum class Kind { terminal, renew, deadline, closed, ended_at_door, lost } kind = Kind::closed;
  bool got_event = false;
  std::string reason;
};

Clock::time_point earlier(Clock::time_point a, const std::optional<Clock::time_point>& b) { return b && *b < a ? *b : a; }

// What one event of the stream did to the task.
enum class Read { nothing, same, changed };

// Reads one event of the stream into `task`: `changed` when it changed as a person sees it.
Read read_event(TaskView& task, const std::string& data, std::string& error) {
  auto doc = parse_bounded_json(data).value_or(json(json::value_t::discarded));
  if (!doc.is_object()) return Read::nothing;
  if (doc.contains("error") && doc["error"].is_object()) { // e.g. this subscriber fell behind
    const json& e = doc["error"];
    error = e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>()
                                                               : "the door ended the stream with an error";
    return Read::nothing;
  }
  if (!doc.contains("result")) return Read::nothing;
  const TaskState state = task.state;
  const std::string text = task.status_text;
  try {
    a2a::apply_stream_event(task, doc["result"]);
  } catch (const std::exception&) {
    return Read::nothing;
  }
  return task.state != state || task.status_text != text ? Read::changed : Read::same;
}

// Subscribes once and reads the stream until it ends, the task ends, it is due for renewal or
// the deadline passes.
StreamEnd one_stream(CurlPool& pool, const DoorTarget& door, TaskView& task, const FollowLimits& limits,
                     const FollowWatch& watch) {
  DoorRequest sub;
  sub.method = DoorMethod::subscribe_to_task;
  sub.task_id = task.id;
  HttpCall call = door_call(door, a2a::request_json("send-follow", sub));
  call.timeout = milliseconds(0); // a stream: no whole-call limit, a stall limit instead
  call.stall_limit = limits.stall_limit;
  auto s = std::make_shared<Subscription>();
  call.on_event = [s](const std::string& data) {
    std::lock_guard<std::mutex> lock(s->mu);
    s->events.push_back(data);
    s->cv.notify_all();
  };
  call.on_done = [s](long status, std::string body, std::string error) {
    std::lock_guard<std::mutex> lock(s->mu);
    s->done = true;
    s->status = status;
    s->body = std::move(body);
    s->error = std::move(error);
    s->cv.notify_all();
  };
  const std::uint64_t id = pool.submit(std::move(call));
  const Clock::time_point wake = earlier(Clock::now() + limits.stream_for, limits.deadline);
  StreamEnd end;
  std::string stream_error;
  for (;;) {
    std::deque<std::string> events;
    bool done;
    {
      std::unique_lock<std::mutex> lock(s->mu);
      s->cv.wait_until(lock, wake, [&] { return !s->events.empty() || s->done; });
      events.swap(s->events);
      done = s->done;
    }
    for (const auto& data : events) {
      const Read r = read_event(task, data, stream_error);
      end.got_event = end.got_event || r != Read::nothing;
      if (r == Read::changed && watch.on_change) watch.on_change(task);
    }
    if (is_terminal(task.state)) {
      pool.cancel(id); // closes at the door's end anyway; nothing more is read
      end.kind = StreamEnd::Kind::terminal;
      return end;
    }
    if (done) break;
    if (Clock::now() >= wake) {
      pool.cancel(id);
      end.kind = limits.deadline && Clock::now() >= *limits.deadline ? StreamEnd::Kind::deadline : StreamEnd::Kind::renew;
      return end;
    }
  }
  // The call ended before the task did.
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->status == 0) {
    end.reason = s->error.empty() ? "the connection failed" : s->error;
    return end;
  }
  if (!end.got_event) { // an answer that was no stream: the door's error (or refusal)
    const DoorReply r = a2a::door_reply_from(s->status, s->body);
    if (r.rpc_code == rpc::unsupported_operation) { // the task has ended: read it
      end.kind = StreamEnd::Kind::ended_at_door;
      return end;
    }
    if (r.refused()) {
      end.kind = StreamEnd::Kind::lost;
      end.reason = "the door refused to follow it: " + to_string(r.refusal) + ": " + r.refusal_message;
      return end;
    }
    if (r.rpc_code == rpc::task_not_found) {
      end.kind = StreamEnd::Kind::lost;
      end.reason = "the door no longer holds it";
      return end;
    }
    end.reason = r.rpc_code != 0 ? "the door answered error " + std::to_string(r.rpc_code) + ": " + r.rpc_message
                                 : "the door answered HTTP " + std::to_string(s->status) + " without a stream";
    return end;
  }
  end.reason = stream_error.empty() ? "the door closed the stream before the task ended" : stream_error;
  return end;
}

// A task the door says has ended, read whole.
std::optional<TaskView> read_ended(CurlPool& pool, const DoorTarget& door, const std::string& task_id,
                                   const FollowLimits& limits, std::string& reason) {
  DoorRequest get;
  get.method = DoorMethod::get_task;
  get.task_id = task_id;
  HttpCall call = door_call(door, a2a::request_json("send-get", get));
  call.timeout = limits.call_timeout;
  if (limits.deadline) call.timeout = std::max(milliseconds(1), std::min(call.timeout,
                                               std::chrono::duration_cast<milliseconds>(*limits.deadline - Clock::now())));
  const HttpOutcome w = call_and_wait(pool, std::move(call));
  if (w.status == 0) {
    reason = "reading the ended task failed: " + w.error;
    return std::nullopt;
  }
  const DoorReply r = a2a::door_reply_from(w.status, w.body);
  if (!r.ok() || !is_terminal(r.task.state)) {
    reason = r.refused() ? "the door refused GetTask: " + to_string(r.refusal) : "the door did not give the ended task: " + r.rpc_message;
    return std::nullopt;
  }
  return r.task;
}

bool session_gone(const DoorTarget& door) {
  if (door.session_id.empty()) return false; // a URL no record names: only its door can tell
  auto rec = read_running_record(door.session_id);
  return !rec || !record_is_live(*rec);
}

} // namespace

FollowEnd follow_task(CurlPool& pool, const DoorTarget& door, TaskView task, const FollowLimits& limits,
                      const FollowWatch& watch) {
  FollowEnd out;
  int failures = 0; // subscriptions in a row that gave no event
  int breaks = 0;   // streams in a row that broke (each waits a little longer before the next)
  for (;;) {
    if (limits.deadline && Clock::now() >= *limits.deadline) {
      out.why = FollowEnd::Why::timed_out;
      break;
    }
    const Clock::time_point began = Clock::now();
    StreamEnd end = one_stream(pool, door, task, limits, watch);
    out.task = task;
    using K = StreamEnd::Kind;
    if (end.kind == K::terminal) return out;
    if (end.kind == K::deadline) {
      out.why = FollowEnd::Why::timed_out;
      return out;
    }
    if (end.kind == K::renew) {
      failures = breaks = 0;
      if (watch.on_renew) watch.on_renew();
      continue;
    }
    if (end.kind == K::ended_at_door) {
      if (auto ended = read_ended(pool, door, task.id, limits, end.reason)) {
        out.task = *ended;
        return out;
      }
      end.kind = K::lost;
    }
    if (end.kind == K::lost) {
      out.why = FollowEnd::Why::lost;
      out.reason = end.reason;
      return out;
    }
    // The stream broke: follow again, at once the first time, then waiting a little longer.
    failures = end.got_event ? 0 : failures + 1;
    breaks = Clock::now() - began >= std::chrono::seconds(5) ? 1 : breaks + 1;
    if (session_gone(door)) {
      out.why = FollowEnd::Why::lost;
      out.reason = "its session " + door.session_id + " has ended: " + end.reason;
      return out;
    }
    if (failures >= limits.max_failures) {
      out.why = FollowEnd::Why::lost;
      out.reason = std::to_string(failures) + " tries to follow it again failed; the last: " + end.reason;
      return out;
    }
    if (watch.on_broken) watch.on_broken(end.reason);
    if (breaks > 1) {
      const milliseconds pause = std::min(milliseconds(4000), milliseconds(250) * (1 << std::min(breaks - 2, 4)));
      std::this_thread::sleep_until(earlier(Clock::now() + pause, limits.deadline));
    }
  }
  out.task = task;
  return out;
}

std::chrono::milliseconds send_stream_for() {
  const char* v = std::getenv("MURMUR_SEND_STREAM_SECS");
  if (v == nullptr) return FollowLimits{}.stream_for;
  const std::string text = v;
  const bool digits = !text.empty() && text.size() <= 5 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const long n = digits ? std::strtol(text.c_str(), nullptr, 10) : 0;
  if (n < 1 || n > 86400)
    throw Failure("E-SND-007",
                  "MURMUR_SEND_STREAM_SECS is '" + text.substr(0, 40) +
                    "': how long one stream follows a task must be whole seconds from 1 to 86400",
                  "unset MURMUR_SEND_STREAM_SECS for the default (600), or set a number in range");
  return std::chrono::seconds(n);
}

} // namespace mur
