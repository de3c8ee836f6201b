// trace_line.hpp — one line of a trace.jsonl read back: an event mur could have written, or
// "unreadable". The one reader of trace lines every command uses (trace show/list, follow, run
// -v, view, stop, formations rm, ps).
//
// Invariant: read_trace_line never throws and returns an event only when the line is a JSON
// object (nesting within max_json_depth, valid UTF-8) whose `event_type` is a string and whose
// `timestamp` is an integer, and every field the readers know (docs/traces.md) that is present
// has its documented type: strings are strings, counts and times are integers in
// [0, 2^53) (so offsets and sums of them never overflow), flags are booleans, `parent_id` is a
// string or null, `formation_callees` an array of strings, `no_answer_below` an array of
// objects of strings. A call's or a task's event names its `call_id` / `task_id`. Anything
// else is unreadable: skipped and counted by the caller, never half-used (a forged
// `"call_id": null` drops the whole line). Fields no reader knows are kept as written and
// never read. Blank lines are neither events nor unreadable.
// Rule: readers of trace files skip a line they cannot read, and count it (docs/traces.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mur {

// The largest integer a trace field may hold (2^53 - 1 ms is 285,000 years).
inline constexpr std::int64_t trace_int_max = (std::int64_t{1} << 53) - 1;

// The event `line` holds (without its newline), or nullopt when it cannot be read.
std::optional<nlohmann::json> read_trace_line(std::string_view line);

// Whether `line` holds nothing but spaces, tabs and carriage returns.
bool blank_trace_line(std::string_view line);

// The events of the lines of `text`, in order, and how many lines could not be read. Only lines
// ended by '\n' are read; what follows the last newline is `tail` (its length in bytes).
struct TraceLines {
  std::vector<nlohmann::json> events;
  int unreadable = 0;
  std::size_t tail = 0;
};
TraceLines read_trace_lines(std::string_view text);

} // namespace mur
