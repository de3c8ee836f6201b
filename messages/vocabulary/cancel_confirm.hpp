// cancel_confirm.hpp — how long a cancel waits for the callees below it to confirm.
//
// Invariant: a CancelTask says how long its sender waits for the answer (`confirmWithinMs`, the
// cancel extension); the task it reaches waits for its own callees' confirmations a margin less
// (own_wait_ms), and asks each of them to confirm within one hop less again (callee_confirm_ms),
// so a callee that hangs is named by the task directly above it, never by one further up. Every
// bound is at least min_confirm_ms.
// Rule: cancel follows the tree; a callee that does not confirm within a bound is named
// (docs/cancel.md §Confirmation).
#pragma once

#include <algorithm>
#include <cstdint>

namespace mur {

inline constexpr std::int64_t default_confirm_ms = 5000;     // an operator's cancel, when it says nothing
inline constexpr std::int64_t session_ending_confirm_ms = 1000; // a session that ends: every member ends too
inline constexpr std::int64_t hop_margin_ms = 500;
inline constexpr std::int64_t min_confirm_ms = 250;
inline constexpr std::int64_t max_confirm_ms = 60'000;

// The bound a task waits for its callees, given the bound its canceller waits for it.
inline std::int64_t own_wait_ms(std::int64_t within_ms) {
  return std::max(min_confirm_ms, within_ms - hop_margin_ms / 2);
}

// The bound a task asks each callee to confirm within.
inline std::int64_t callee_confirm_ms(std::int64_t within_ms) {
  return std::max(min_confirm_ms, within_ms - hop_margin_ms);
}

} // namespace mur
