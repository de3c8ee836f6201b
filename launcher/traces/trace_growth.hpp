// trace_growth.hpp — reading a trace.jsonl while its session still writes it: its first whole
// line, and the whole lines it gained since the last read.
//
// Invariant: only whole lines are read (a line still being written — no newline yet — waits for
// the next read, and the offset stays before it); every line is read by read_trace_line
// (messages/vocabulary/trace_line.hpp): one it cannot read is skipped and counted, never fails the reader.
// Read-only. Shared by `--follow` / `run -v` (trace_follow) and `mur view` (view_state).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace mur {

// The file's first line, once it is whole ("" before).
std::string first_trace_line(const std::string& path);

// The event of the file's first line, once it is whole and readable (nullopt before, or when
// it cannot be read).
std::optional<nlohmann::json> first_trace_event(const std::string& path);

// The events of the whole lines after `offset`; `offset` moves past the last one read; lines
// that cannot be read are added to `*unreadable` (when given).
std::vector<nlohmann::json> read_new_events(const std::string& path, std::uint64_t& offset, int* unreadable = nullptr);

// The session directories of one formation as they appear (its launcher's and every formation
// root's ses_… folders, formation_roots()). A folder counts once the first line of its trace is
// whole and names the formation; one naming another formation is never read again.
class FormationSessionScan {
public:
  FormationSessionScan(std::string formation_id, std::string project_dir)
    : formation_id_(std::move(formation_id)), project_dir_(std::move(project_dir)) {}

  // Calls `on_session(dir, first)` for each of the formation's session folders, in directory
  // order: with its first event when newly found, with nullptr on every later scan.
  void scan(const std::function<void(const std::string& dir, const nlohmann::json* first)>& on_session);

private:
  std::string formation_id_, project_dir_;
  std::set<std::string> found_, others_;
};

} // namespace mur
