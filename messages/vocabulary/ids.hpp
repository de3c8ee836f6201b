// ids.hpp — the identifiers of formations, sessions, tasks, contexts, messages, calls, events.
//
// Invariant: an id is its prefix followed by exactly 32 lowercase hex digits of a UUIDv7, so
// ids sort by the millisecond they were minted and `max_age` can read that time back.
// Within one process, ids are strictly increasing even when minted in the same millisecond.
// Rule: one formation id is minted per launch, and every member carries it
// (docs/spec/formation.md §Launch; docs/spec/capsule.md §Ids).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mur::ids {

inline constexpr std::string_view formation = "frm_";
inline constexpr std::string_view session = "ses_";
inline constexpr std::string_view task = "tsk_";
inline constexpr std::string_view context = "ctx_";
inline constexpr std::string_view message = "msg_";
inline constexpr std::string_view member_call = "mcl_";
inline constexpr std::string_view delegation = "dlg_";
inline constexpr std::string_view event = "evt_";

// A fresh UUIDv7 as 32 lowercase hex digits (libsodium's CSPRNG supplies the random bits).
std::string uuid7_hex();

// A UUIDv7 as 32 lowercase hex digits from its parts: the Unix ms, the 12-bit rand_a field and
// 8 random bytes (of which the variant bits take two). Used by ids sources that hold their own state.
std::string uuid7_hex(std::uint64_t ms, std::uint16_t rand_a, const unsigned char (&rand_b)[8]);

// prefix + uuid7_hex(), e.g. mint(ids::formation) == "frm_0192…". Process-wide (one sequence
// behind a mutex): for command-line code only; actors mint through their own IdClock
// (actors/id_clock.hpp), so no lock is shared between actors.
std::string mint(std::string_view prefix);

// True when `id` is exactly `prefix` + 32 lowercase hex digits.
bool is_valid(std::string_view id, std::string_view prefix);

// The Unix millisecond a UUIDv7-based id was minted at (its first 12 hex digits), when valid.
std::optional<std::uint64_t> minted_at_ms(std::string_view id, std::string_view prefix);

} // namespace mur::ids
