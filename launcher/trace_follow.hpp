// trace_follow.hpp — watching a formation: its members' trace.jsonl files read as they grow,
// one line per task, call and answer (time, caller → callee, event, status).
//
// Invariant: read-only, and only whole lines (a line still being written waits for the next
// poll). The files are polled (`poll()` reads what each file gained since the last call; the
// caller decides the interval): a trace file has no other event to wait on, and members flush
// their traces at most 200 ms after an event (actors/trace_recorder.hpp). Sessions of other
// formations in the same `.murmur/` are read once (their first line) and then skipped. Lines of
// one poll are in timestamp order.
// Issue 14, item 4: "`mur run --roster -v` and `mur trace show frm_… --follow` print calls and
// answers as they happen (one line each: time, caller → callee, event, status)".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mur {

class TraceFollower {
public:
  // `project_dir`: where the entry member's sessions are ("" to read it from the marker).
  explicit TraceFollower(std::string formation_id, std::string project_dir = {});

  // The lines of every event the member traces gained since the last call.
  std::vector<std::string> poll();

private:
  struct File {
    std::string member;
    std::uint64_t offset = 0;
  };
  std::string formation_id_, project_dir_;
  std::map<std::string, File> files_; // by trace file path
  std::set<std::string> others_;      // session directories of other formations
  std::map<std::string, std::string> origin_; // task id → origin
};

// One event as a watch line ("" for an event not shown). `origins` remembers each task's origin
// (a peer's task is shown by its caller's call lines, a user's by its own).
std::string watch_line(const nlohmann::json& event, const std::string& member,
                       std::map<std::string, std::string>& origins);

} // namespace mur
