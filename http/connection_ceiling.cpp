// connection_ceiling.cpp — see connection_ceiling.hpp.
#include "http/connection_ceiling.hpp"

#include "messages/vocabulary/failure.hpp"

#include <algorithm>
#include <cstdlib>

namespace mur {
namespace {

std::uint64_t usable(std::uint64_t fd_limit) {
  return fd_limit > 2 * fd_reserve ? fd_limit - fd_reserve : std::max<std::uint64_t>(fd_limit / 2, 1);
}

} // namespace

std::size_t bounded_ceiling(std::size_t wanted, std::uint64_t fd_limit) {
  return static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(wanted, usable(fd_limit) / 2)));
}

std::size_t door_connection_ceiling(std::uint64_t fd_limit, const std::optional<std::string>& configured) {
  const std::uint64_t most = usable(fd_limit);
  if (!configured) return bounded_ceiling(default_door_connections, fd_limit);
  const std::string& text = *configured;
  const bool digits = !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::uint64_t n = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || n < 1 || n > most)
    throw Failure("E-RUN-054",
                  "MURMUR_MAX_CONNECTIONS is '" + text.substr(0, 40) + "': a door's connection ceiling must be a whole number from 1 to " +
                    std::to_string(most) + " (the open-file limit " + std::to_string(fd_limit) + " less " + std::to_string(fd_reserve) +
                    " kept for the rest of the process)",
                  "unset MURMUR_MAX_CONNECTIONS for the default (" + std::to_string(bounded_ceiling(default_door_connections, fd_limit)) +
                    "), or set a number in range; raise the limit with `ulimit -n` for more");
  return static_cast<std::size_t>(n);
}

std::size_t door_connection_ceiling(std::uint64_t fd_limit) {
  const char* v = std::getenv("MURMUR_MAX_CONNECTIONS");
  return door_connection_ceiling(fd_limit, v ? std::optional<std::string>(v) : std::nullopt);
}

} // namespace mur
