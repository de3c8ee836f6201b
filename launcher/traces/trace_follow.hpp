// trace_follow.hpp — watching a formation: its members' trace.jsonl files read as they grow,
// one line per task, call and answer (time, caller → callee, event, status).
//
// Invariant: read-only, and only whole lines (a line still being written waits for the next
// poll). The files are polled (`poll()` reads what each file gained since the last call; the
// caller decides the interval): a trace file has no other event to wait on, and members flush
// their traces at most 200 ms after an event (actors/trace_recorder.hpp) — so an event is held
// back until it is `settle` old, letting the other members' files catch up, and the lines come
// in timestamp order across members (a member whose flush is later than that still has its own
// lines in order). Sessions of other formations in the same `.murmur/` are read once (their
// first line) and then skipped.
// A member's delegations show as `member → capsule:<name>  delegate  started` and `… answer
// <status> <duration>`; the children's own traces are not followed (their parent's lines say it).
// Rule (docs/spec/choices.md §Observability): `mur run --roster -v` and `mur trace show frm_…
// --follow` print calls and answers as they happen, one line each: time, caller → callee, event,
// status.
#pragma once

#include "launcher/traces/trace_growth.hpp"

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

  static constexpr std::int64_t settle_ms = 500;

  // The lines of the events the member traces gained, those at least `settle_ms` old (by the
  // wall clock; every one when `all`, e.g. once the formation has ended), in timestamp order.
  std::vector<std::string> poll(bool all = false);

private:
  struct File {
    std::string member;
    std::uint64_t offset = 0;
  };
  std::string formation_id_, project_dir_;
  std::map<std::string, File> files_; // by trace file path
  FormationSessionScan sessions_;
  std::map<std::string, std::string> origin_; // task id → who sent it ("" for a peer)
  struct Held {
    std::int64_t at;
    std::uint64_t order;
    std::string member;
    nlohmann::json event;
  };
  std::vector<Held> held_; // read, not yet printed
  std::uint64_t read_ = 0;
};

// One event as a watch line ("" for an event not shown). `origins` remembers who sent each task
// (its submitter, or "user"; "" for a peer's task, shown by its caller's call lines instead).
std::string watch_line(const nlohmann::json& event, const std::string& member,
                       std::map<std::string, std::string>& origins);

} // namespace mur
