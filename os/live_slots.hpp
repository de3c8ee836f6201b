// live_slots.hpp — the formation's live ledger on disk: one lock file per slot a delegated child
// may hold, shared by every process of the formation (its members, their children, theirs).
//
// Invariant: a ledger directory (0700) holds `limit.json` (0600, written whole: `{"max_live":N,
// "members":M}`, 1 ≤ M ≤ N ≤ 4096) and at most N − M slot files `slot-<i>` (0600, made on first
// use). A slot is held by an open descriptor on its file with an exclusive flock: at most one
// holder per slot, whatever the process, and the kernel lets it go when that descriptor closes
// — a holder killed with SIGKILL included — so a slot never outlives its process. Descriptors
// are close-on-exec: a started child never inherits its parent's slot.
// Threat model: the ledger bounds a runaway tree of the formation's own capsules; it is not a
// barrier against a process of the same user that takes slots on purpose (that can only refuse
// delegations, never raise the ceiling).
// Rule: a per-formation ceiling of live members and children, default 64 (docs/roster.md §Limits).
#pragma once

#include "os/unique_fd.hpp"

#include <optional>
#include <string>

namespace mur {

struct LiveLimit {
  int max_live = 0; // the ceiling: members and live children together
  int members = 0;  // how many of it the formation's members take
};

// Makes `dir` (0700; it may exist, its slots are kept) and writes its limit.json. Throws
// std::runtime_error with a sentence naming what failed.
void make_live_ledger(const std::string& dir, LiveLimit limit);

class LiveSlots {
public:
  // Reads `dir`/limit.json. Throws std::runtime_error with a sentence when it is missing or wrong.
  static LiveSlots open(const std::string& dir);

  const LiveLimit& limit() const { return limit_; }
  // A free slot, held until the descriptor closes; none when every slot is held. Throws
  // std::runtime_error when a slot file cannot be opened.
  std::optional<UniqueFd> take() const;

private:
  std::string dir_;
  LiveLimit limit_;
};

} // namespace mur
