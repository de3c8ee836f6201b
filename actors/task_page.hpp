// task_page.hpp — the order ListTasks serves tasks in, and the cursor that continues a listing.
//
// Invariant: rows are ordered by status timestamp, newest first, ties broken by id (newest
// first; ids sort by minting time), so the order is total. A cursor names the last row a page
// served (its timestamp and id); the next page holds exactly the rows after it in that order. A
// task that arrives or changes between pages sorts before the cursor, so no row is ever served
// twice, and the cursor stays valid after the row it names has been forgotten. The token is
// opaque to callers (base64url of "<ms>|<id>") and decoding refuses anything this door did not
// spell.
// Spec: docs/spec/a2a.md §ListTasks (cursor pagination, by status timestamp, newest first).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mur {

struct TaskCursor {
  std::int64_t updated_ms = 0;
  std::string id;
};

// Whether row (a_ms, a_id) comes before row (b_ms, b_id) in a listing.
inline bool listed_before(std::int64_t a_ms, const std::string& a_id, std::int64_t b_ms, const std::string& b_id) {
  return a_ms != b_ms ? a_ms > b_ms : a_id > b_id;
}

std::string encode_cursor(const TaskCursor& c);
// The cursor a token spells, or nullopt when the token is not one encode_cursor wrote.
std::optional<TaskCursor> decode_cursor(const std::string& token);

} // namespace mur
