// session_traces.hpp — reading sessions' trace.jsonl files back: who a session was, how it
// ended, and every member call it made.
//
// Invariant: reading never changes a file; every line is read by read_trace_line
// (messages/vocabulary/trace_line.hpp): one it cannot read (or a last line without its newline) is skipped
// and counted in `unreadable`, never fails the reader; a session is
// named by its session_start line (its formation, member, capsule, callees). A formation's
// sessions are found in the project's `.murmur/` (named by the formation's marker), the
// current directory's `.murmur/`, and each `$MURMUR_HOME/formations/<frm>/<member>/.murmur/`.
// A delegated child's session lives under its parent's: `<parent session dir>/children/<dlg>/
// .murmur/<ses>/` (grandchildren likewise under the child's); it is named `capsule:<name>` in
// the member column, and its `spawned_by` names the parent's session.
// Rule: each member's trace carries the formation id, which `mur trace show <frm_id>` joins on
// (docs/spec/formation.md §Stopping and listing).
#pragma once

#include "messages/vocabulary/task_budget.hpp"
#include "messages/vocabulary/token_price.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct TracedCall {
  std::string call_id;
  std::string caller; // the member whose trace holds it
  std::string callee;
  std::string status;
  std::int64_t duration_ms = 0;
  bool delivered = false;
};

// What a session's model requests cost (its `inference` events that name a model server's model).
struct ModelTotals {
  int requests = 0;
  std::int64_t duration_ms = 0;
  std::int64_t prompt_tokens = 0;     // as the server reported them
  std::int64_t completion_tokens = 0;
  std::int64_t reasoning_tokens = 0;  // of completion_tokens, where reported
  int token_reports = 0;              // requests whose server reported token counts (0: n/a)
  int reasoning_reports = 0;          // requests whose server reported reasoning tokens
  int retries = 0;
  int failed = 0;
};

struct SessionTrace {
  std::string path; // the session directory
  std::string session_id;
  std::string formation_id;
  std::string member;
  std::string capsule, version;
  std::vector<std::string> callees;
  std::string spawned_by;  // a delegated child: its parent's session
  std::string delegation;  // a delegated child: the dlg_ id it served
  bool formation_ended = false;
  bool spawner_ended = false; // a delegated child whose spawner lifeline closed
  std::optional<std::string> session_end; // its exit_status
  std::int64_t started_ms = 0;
  std::int64_t last_ms = 0; // the last event's timestamp
  std::vector<TracedCall> calls;
  std::vector<TracedCall> delegations; // its `delegation` events (callee: capsule:<name>)
  int tasks = 0;
  ModelTotals model;
  Usage usage;                        // what its tasks spent themselves (launcher/traces/trace_usage.hpp)
  std::optional<TokenPrice> price;    // session_start's `price` (the capsule's inference.price)
  std::vector<nlohmann::json> events; // every line that could be read, in file order
  int unreadable = 0;                 // lines that could not be read (skipped)
  std::string write_failure;          // the trace.incomplete marker's first line: a write failed ("" none)
};

std::optional<SessionTrace> read_session_trace(const std::string& session_dir);

// The session directories of the children `session_dir`'s session delegated to, one level down
// (`children/<dlg_…>/.murmur/<ses_…>`), in start order (session ids sort by time).
std::vector<std::string> child_session_dirs(const std::string& session_dir);

// Every delegated child's session under `session_dir` (children, then theirs), parents first.
std::vector<SessionTrace> child_sessions(const std::string& session_dir);

// Every session of formation `frm` (ordered by session id: start order), then its members'
// delegated children (child_sessions).
std::vector<SessionTrace> formation_sessions(const std::string& frm);

// The `.murmur/` directories that may hold sessions of formation `frm`: the current directory's,
// `project_dir`'s (or the marker's project_dir when "") and each member directory's.
std::vector<std::string> formation_roots(const std::string& frm, const std::string& project_dir = {});

// Every session under `root` (a `.murmur/` directory) whose trace starts, newest first.
std::vector<SessionTrace> sessions_under(const std::string& root);

// One session by id: the current directory's .murmur, its running record's workdir, then every
// formation member directory.
std::optional<SessionTrace> find_session(const std::string& session_id, const std::string& workdir_hint = {});

// How a session ended, in one phrase: still running | formation_ended[, session_end <s>] |
// spawner_ended[, session_end <s>] | session_end <s> | no session_end.
std::string ending_of(const SessionTrace& t, bool running);

} // namespace mur
