#include "messages/vocabulary/duration.hpp"

#include <cstdint>
#include <limits>

namespace mur {

DurationResult parse_duration(std::string_view text) {
  if (text.empty()) return DurationError{"it is empty"};
  std::size_t i = 0;
  std::uint64_t value = 0;
  const std::uint64_t cap = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
    if (value > cap) return DurationError{"it is too large"};
    ++i;
  }
  if (i == 0) return DurationError{"it does not start with a whole number"};
  std::string_view unit = text.substr(i);
  std::uint64_t scale;
  if (unit.empty() || unit == "s") scale = 1000;
  else if (unit == "ms") scale = 1;
  else if (unit == "m") scale = 60'000;
  else if (unit == "h") scale = 3'600'000;
  else if (unit == "d") scale = 86'400'000;
  else return DurationError{"its unit is not one of ms, s, m, h, d"};
  if (value > cap / scale) return DurationError{"it is too large"};
  return std::chrono::milliseconds(static_cast<std::int64_t>(value * scale));
}

std::string format_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  struct Unit { std::int64_t scale; const char* name; };
  for (auto u : {Unit{86'400'000, "d"}, Unit{3'600'000, "h"}, Unit{60'000, "m"}, Unit{1000, "s"}})
    if (ms != 0 && ms % u.scale == 0) return std::to_string(ms / u.scale) + u.name;
  return std::to_string(ms) + "ms";
}

} // namespace mur
