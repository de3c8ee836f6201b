// task_follow.hpp — following a task at its door until it ends: how `mur send` waits.
//
// Invariant: the task is followed over A2A SubscribeToTask (an SSE stream), never polled; each
// change of state reaches `on_change` on the caller's thread as it arrives. No stream is held
// longer than `stream_for`: one that old is closed and the task followed on a new one
// (`on_renew`), so no connection-level limit (the door's, a proxy's) ends the wait. A stream
// that breaks (cut, reset, stalled past `stall_limit`, closed before the task ended, dropped for
// falling behind) is subscribed to again at once, then after 250 ms doubling to 4 s while
// subscribing fails; `max_failures` failed subscriptions in a row end the wait as `lost`, and so
// does a door that no longer holds the task or a door whose running record is no longer live.
// A door that answers that the task has ended is read once with GetTask. With a `deadline` the
// wait ends then (`timed_out`), the call in flight canceled. Ending the wait never touches the
// task: it goes on at the door.
// Rule: `mur send` follows its task over SubscribeToTask as long as it works; --timeout bounds
// the wait, and the task goes on (docs/spec/choices.md §Command line, `mur send`).
#pragma once

#include "launcher/base/door_target.hpp"
#include "messages/wire/a2a_task.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace mur {

struct FollowLimits {
  std::optional<std::chrono::steady_clock::time_point> deadline; // none: as long as the task works
  std::chrono::milliseconds stream_for{std::chrono::minutes(10)}; // one stream at most this long, then a new one
  std::chrono::milliseconds stall_limit{30000}; // a stream silent this long has broken (doors beat every 2 s)
  std::chrono::milliseconds call_timeout{30000}; // the one GetTask of a task that has ended
  int max_failures = 5; // subscriptions that fail in a row before the wait ends as lost
};

struct FollowEnd {
  enum class Why { ended, timed_out, lost };
  Why why = Why::ended;
  TaskView task;      // as last seen (terminal when ended)
  std::string reason; // lost: what the last try met
};

struct FollowWatch {
  std::function<void(const TaskView&)> on_change;           // the task changed state
  std::function<void(const std::string& reason)> on_broken; // a stream broke; following again
  std::function<void()> on_renew;                           // a stream reached stream_for; a new one follows
};

// Follows `task` (not terminal) at `door` until it ends, the deadline passes, or it is lost.
FollowEnd follow_task(CurlPool& pool, const DoorTarget& door, TaskView task, const FollowLimits& limits,
                      const FollowWatch& watch = {});

// MURMUR_SEND_STREAM_SECS (whole seconds, 1 to 86400) as stream_for; the default when unset.
// Another value is the Failure E-SND-007.
std::chrono::milliseconds send_stream_for();

} // namespace mur
