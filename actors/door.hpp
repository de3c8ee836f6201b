// door.hpp — the door actor: a member's task table, its acceptance policy and who may reach what.
//
// State table (per request): authenticate → peer consent → method → scope → admit or refuse busy
// → answer (or stream TaskEvents to a subscriber).
//   - verdict Missing ⇒ refused unauthenticated; Invalid ⇒ invalid_token; NotPermitted ⇒
//     not_permitted (an authenticated door only; a public door ignores Authorization);
//   - a formation credential or `x-murmur-task-origin: peer` at a door that does not accept
//     peer tasks ⇒ peer_not_accepted (these two steps are `judge_caller`, door_refusal.hpp);
//   - an unknown method ⇒ -32601; a method outside the credential's scopes ⇒ refused
//     insufficient_scope (refusals are DoorRefusal values; http/ picks 401/403);
//   - a formation caller reaches only the tasks it started: any other id (as taskId or in
//     referenceTaskIds) answers -32001, and ListTasks lists only its own.
// Acceptance: `none` serves no SendMessage (-32601); `single` holds one task at a time; `queue`
// runs one and holds up to `queue_depth` waiting. No room ⇒ a REJECTED task with `busy` set and
// the busy status text. A closing door rejects every new task ("the session is closing").
// Invariants: a task's state only moves forward; every subscriber receives every state change
// of its task in order, the last one terminal; a canceled task stays canceled whatever its task
// actor reports afterwards.
// Bookkeeping: no request costs more as tasks pass. Task lookup, a task's end, a task actor's
// down message (an address → task id map), subscribers and waiters are O(log n) or O(1); the
// queue is ordered by id (ids sort by minting time). The table is bounded by TaskRetention: a
// task that has ended and whose task actor is gone is kept while it is among the newest
// `max_tasks` ended ones and younger than `max_age` since it ended; then it is forgotten and its
// id answers -32001 exactly like one the door never held. ListTasks orders by status timestamp
// (newest first, ties by id) and pages with an opaque cursor naming the last row served, so a
// task that arrives between pages never repeats a row (docs/spec/a2a.md §ListTasks).
// Conversations (a threaded door): a task starts with the earlier exchanges of its caller (its
// submitter credential) in its contextId, and a task that completed adds its own; another caller
// naming the same contextId has a conversation of its own and never sees this one
// (actors/conversation_store.hpp: caps, what is dropped, and that it lives in memory only).
// Rule: no room ⇒ the task is refused busy; a formation caller reaches five methods, on the
// tasks it started only (docs/spec/door.md §Acceptance and busy, §What a formation caller reaches).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/conversation_store.hpp"
#include "actors/id_clock.hpp"
#include "actors/ports.hpp"
#include "messages/wire/a2a_task.hpp"
#include "messages/wire/door_request.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace mur {

// How many ended tasks the door remembers (lifecycle.retain_tasks in murmur.yaml).
struct TaskRetention {
  std::size_t max_tasks = 1000;                    // newest ended tasks kept (0: none; murmur.yaml asks ≥ 1)
  std::chrono::milliseconds max_age{3'600'000};    // since each ended
};

struct AcceptancePolicy {
  enum class Kind { none, single, queue } kind = Kind::single;
  int queue_depth = 1;          // queue: tasks waiting beside the running one
  bool exit_after_task = true;  // lifecycle.after_task: exit
  TaskRetention retention;      // what the door keeps of the tasks it has served
};

struct DoorSetup {
  std::string session_id;
  std::string capsule_name;            // the realm of WWW-Authenticate
  AcceptancePolicy acceptance;
  bool authenticated = false;          // the manifest declares network.authentication
  bool accepts_peer_tasks = false;
  trace_port trace;
  door_owner owner;                    // the member actor: told `ended_atom` when after_task: exit
                                       // applies, and `(task_end_atom, view)` as each task's actor ends
  IdClockSpec ids;                     // task and context ids, timestamps (stream "<session>/door")
  bool threaded = false;               // lifecycle.conversation: threaded (conversation_store.hpp)
  ConversationCaps conversation_caps;  // what a threaded door keeps of its conversations
  // Starts the task actor for an admitted task; the door is handed so the task reports to it.
  // `history`: a threaded door's earlier exchanges of the task's caller in the task's context.
  std::function<task_handle(const TaskView& task, const Transcript& history, const task_owner& door)> start_task;
};

door_handle spawn_door(caf::actor_system& sys, DoorSetup setup);

} // namespace mur
