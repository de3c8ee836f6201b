// view_state.hpp — what `mur view` shows of a formation (or one session): its members, each
// member's tasks, the calls in flight between them and the tree of tasks and calls, as one JSON
// document made from the members' trace.jsonl files as they grow.
//
// Invariant: read-only, and only whole lines (a line still being written waits for the next
// poll). A file is read from where the last poll stopped; the state is rebuilt from every event
// read so far (launcher/traces/trace_tree.hpp builds the tree). The state holds only what the traces
// hold and of that only names, ids, statuses, times and task texts — never a door's URL, a
// token or a key (traces hold none; session_start's other fields are not copied). While it runs,
// a task a person sent (origin `user`) that waits for input carries the question it shows
// (`question`: its last `input_required` with no `input_answered`, `input_timeout` or `task_end`
// after it). Each started member's `usage` and the formation's `usage` are what its ended tasks
// spent themselves, in the one usage shape, priced by session_start's `price`
// (launcher/traces/trace_usage.hpp); a member not started has none (null).
// Rule (docs/spec/choices.md §Observability): the page shows the members, each member's tasks
// and the calls in flight between them, updating live, then the finished tree with timings.
#pragma once

#include "launcher/traces/trace_growth.hpp"
#include "launcher/traces/trace_tree.hpp"
#include "launcher/view/transcript_index.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mur {

class ViewSource {
public:
  // A formation (`frm_…`: its members' sessions, found as `mur trace show` finds them; `members`
  // the roster's names, shown before their sessions start) …
  static ViewSource formation(std::string formation_id, std::string project_dir = {},
                              std::vector<std::string> members = {});
  // … or one session's trace directory.
  static ViewSource session(std::string session_id, std::string session_dir);

  // Reads what the trace files gained; true when some event was read.
  bool poll();

  // The state (docs/traces.md, "Watching in a browser"). `running`: whether the formation (or
  // session) still runs; `now_ms`: the wall clock, for the elapsed times of what is running.
  nlohmann::json state(bool running, std::int64_t now_ms) const;

  // Every task read so far, with where its recorded transcript is (launcher/view/transcript_index.hpp).
  TranscriptIndex transcripts() const;

private:
  ViewSource() = default;
  struct File {
    std::size_t session = 0; // index into sessions_
    std::uint64_t offset = 0;
  };
  std::string formation_id_, session_id_, session_dir_, project_dir_;
  std::vector<std::string> planned_;
  std::map<std::string, File> files_; // by trace file path
  std::optional<FormationSessionScan> sessions_scan_; // a formation's sessions as they appear
  std::vector<SessionEvents> sessions_;
  std::vector<std::string> dirs_;     // per session: its trace directory
  std::vector<int> unreadable_;       // per session: lines that could not be read (skipped)
};

} // namespace mur
