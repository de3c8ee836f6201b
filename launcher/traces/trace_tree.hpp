// trace_tree.hpp — a formation's (or one session's) trace events joined into one tree: each
// task with its calls, and under each call the callee's task, in time order.
//
// Invariant: built only from the events given (pure; no file, no clock). A callee's task hangs
// under the call whose `member_task_id` (from `member_call` or `member_call_start`) is its
// `task_start.task_id`; every task no call claims is a root. Siblings are ordered by start time
// (a call starts `duration_ms` before its `member_call` event, or at its `member_call_start`),
// ties by the order the events were read. A task without `task_end` is `running`; a call
// without its `member_call` is `running`. A delegation (`delegation_start` / `delegation`, or a
// `call_refused` naming a `capsule`) is a call of kind "delegation" whose callee is
// `capsule:<name>`; its child's task (the child session's `task_start.task_id` =
// `child_task_id`) hangs under it the same way. A call of one of the capsule's own tools (a
// `tool_call` event naming its `server`) is a call of kind "tool" under its task, started
// `duration_ms` before its event; its arguments are known by size only. A task's `inference`
// events are its model requests (trace_model_requests.hpp). Texts are kept whole; shortening is
// the renderer's. A task's usage in text and JSON is the one usage shape (trace_usage.hpp), its
// cost at its own session's price plus its callees' tasks'.
// Rule (docs/spec/choices.md §Observability): a formation's traces join into one tree, and
// `mur trace show TARGET` prints that tree in time order.
#pragma once

#include "launcher/traces/trace_usage.hpp"
#include "launcher/traces/trace_model_requests.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mur {

// One session's events, as its trace.jsonl holds them (in file order).
struct SessionEvents {
  std::string member; // formation_member ("" outside a formation)
  std::string session_id;
  std::vector<nlohmann::json> events;
};

struct TaskNode;

struct CallNode {
  std::string kind = "call"; // call | delegation | tool (a call of one of the capsule's own tools)
  std::string call_id;   // mcl_… / dlg_… ("" for a refusal before any id)
  std::string caller, callee;
  std::string status;    // completed, failed, refused, abandoned, running, …
  std::int64_t started_at = 0; // unix ms
  std::int64_t duration_ms = -1; // -1 while running
  bool delivered = false, truncated = false;
  std::string text;      // the task sent
  std::string output;    // the answer (or the failure's text)
  std::string reason;    // why it was refused
  std::string tool = "call-member"; // "delegate" for a delegation, or "end-without-answer": a refused end-without-answer (text: its reason);
                                    // a tool call: <server>__<tool> (callee: the server)
  std::int64_t arguments_bytes = -1; // a tool call: the size of its arguments (never their text)
  std::string member_task_id; // the callee's task (a delegation: its child's task)
  std::string child_session;  // a delegation: the child's session
  std::unique_ptr<TaskNode> task; // the callee's task, when its trace holds it
};

struct TaskNode {
  std::string member, session_id, task_id;
  std::string origin;    // user | peer | ""
  std::string submitter;
  std::string status;    // task_end's exit_status, or running
  std::string state;     // task_end's state
  std::int64_t started_at = 0;
  std::int64_t duration_ms = -1; // -1 while running
  int turns = 0;
  std::string text, answer, reason;
  std::vector<std::string> no_answer_below; // "member status" of each call that ended without an answer
  nlohmann::json usage, own_usage, budget; // task_end's (task_start's budget until it ends); null when absent
  std::optional<TokenPrice> price;         // its session's (session_start's `price`)
  std::vector<CallNode> calls;
  std::vector<ModelRequest> model_requests; // its `inference` events (trace_model_requests.hpp)
};

// What task `t` and the tasks below it that the tree holds spent: its task_end's `usage`, with
// its own usage at its price plus what each callee's task in the tree cost (launcher/traces/trace_usage.hpp).
PricedUsage task_usage(const TaskNode& t);

struct TraceTree {
  std::int64_t started_at = 0; // the earliest session_start (0 when none)
  std::vector<TaskNode> roots;
};

TraceTree build_trace_tree(const std::vector<SessionEvents>& sessions);

// The tree as text, one line per task and per call, indented by depth: offsets from the tree's
// start; texts cut to `width` characters (0: whole) with newlines shown as spaces.
std::string render_trace_tree(const TraceTree& tree, std::size_t width);

// The tree as JSON (docs/traces.md): an array of task objects, each with its `calls`.
nlohmann::json trace_tree_json(const TraceTree& tree);

// `text` on one line, cut to at most `width` characters (UTF-8 safe) with "…" when cut.
std::string shortened(const std::string& text, std::size_t width);

} // namespace mur
