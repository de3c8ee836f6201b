// ids.hpp — the identifiers of formations, sessions, tasks, contexts, messages, calls, events.
//
// Invariant: an id is its prefix followed by exactly 32 lowercase hex digits of a UUIDv7, so
// ids sort by the millisecond they were minted and `max_age` can read that time back.
// Within one process, ids are strictly increasing even when minted in the same millisecond.
// Seed: "every member carries the same formation_id, minted for this launch".
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
inline constexpr std::string_view event = "evt_";

// A fresh UUIDv7 as 32 lowercase hex digits (libsodium's CSPRNG supplies the random bits).
std::string uuid7_hex();

// prefix + uuid7_hex(), e.g. mint(ids::formation) == "frm_0192…".
std::string mint(std::string_view prefix);

// True when `id` is exactly `prefix` + 32 lowercase hex digits.
bool is_valid(std::string_view id, std::string_view prefix);

// The Unix millisecond a UUIDv7-based id was minted at (its first 12 hex digits), when valid.
std::optional<std::uint64_t> minted_at_ms(std::string_view id, std::string_view prefix);

} // namespace mur::ids
