// live_slot.hpp — what a member's egress asks of the formation's live ledger before it starts a
// delegated child, and what the ledger answers.
//
// Invariant: a slot is held for one delegation (named by its dlg_ id) from a granted
// TakeLiveSlot to its FreeLiveSlot — sent by the egress when no child was asked for, else by the
// child port once the child is gone — (or the end of the process that holds it); a formation never
// has more slots held than its ceiling leaves beside its members: `max_live` counts the
// roster's members and every live delegated child, at any depth, in any member's process. A
// refusal (`granted` false) says why in `failure`: the ceiling reached, or a ledger that could
// not be read (the ledger fails closed: no slot, no child).
// Rule: no runaway trees — a per-formation ceiling of live members and children
// (docs/roster.md §Limits).
#pragma once

#include "messages/vocabulary/message_fields.hpp"

#include <cstdint>
#include <string>

namespace mur {

// The ceiling when roster.yaml names none (and for a capsule run alone: its one member).
inline constexpr int default_max_live = 64;
// The largest ceiling roster.yaml may set.
inline constexpr int max_live_limit = 4096;

struct TakeLiveSlot {
  std::string call_id; // the delegation's dlg_ id
  MUR_FIELDS(call_id)
};

struct LiveSlot {
  std::string call_id;
  bool granted = false;
  std::int32_t max_live = 0; // the formation's ceiling (members and children)
  std::string failure;       // granted: ""; else why not, a sentence (no path, no secret)
  MUR_FIELDS(call_id, granted, max_live, failure)
};

struct FreeLiveSlot {
  std::string call_id;
  MUR_FIELDS(call_id)
};

} // namespace mur
