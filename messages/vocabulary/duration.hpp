// duration.hpp — the durations users write: `500ms`, `90s`, `10m`, `2h`, `7d`, bare seconds.
//
// Invariant: a duration is a whole, positive-or-zero number of milliseconds that fits in 63
// bits; anything else (a sign, a fraction, an unknown unit, spaces inside, overflow) is refused
// with a sentence saying what was wrong and what is accepted. Used by `--deadline` and
// `trace.retain.max_age` (docs/spec/choices.md §Durations).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <variant>

namespace mur {

struct DurationError {
  std::string why; // never empty; does not repeat the input
};

using DurationResult = std::variant<std::chrono::milliseconds, DurationError>;

DurationResult parse_duration(std::string_view text);

// The accepted forms, for Fix: hints.
inline constexpr std::string_view duration_forms =
  "a whole number with a unit: 500ms, 90s, 10m, 2h, 7d (a bare number is seconds)";

// Renders back the shortest exact form (e.g. 90000ms -> "90s", 7200000ms -> "2h").
std::string format_duration(std::chrono::milliseconds d);

} // namespace mur
