// iso_time.hpp — the ISO-8601 UTC timestamps A2A uses (TaskStatus.timestamp, ListTasks'
// statusTimestampAfter), to and from Unix milliseconds.
//
// Invariant: rendering is always `YYYY-MM-DDTHH:MM:SS.mmmZ`; parsing accepts that form with or
// without fractional seconds (any number of digits, cut to ms) and with `Z` or a `±HH:MM`
// offset, and refuses anything else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mur {

std::string iso_utc_ms(std::int64_t unix_ms);
std::optional<std::int64_t> parse_iso_utc_ms(std::string_view text);

} // namespace mur
