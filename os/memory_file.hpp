// memory_file.hpp — a text handed to a child on a descriptor instead of its command line or
// environment (a plan, a request, the listings a sealed member kept).
//
// Invariant: the descriptor returned is close-on-exec, holds exactly `text` and reads from its
// start; nothing of it is on disk or in any process's argv or environment.
// Rule: nothing secret on argv (docs/isolation.md §Secrets).
#pragma once

#include "os/unique_fd.hpp"

#include <string>

namespace mur {

// An invalid UniqueFd (errno set) when it cannot be made.
UniqueFd memory_file(const char* name, const std::string& text);

// Everything readable from `fd`, to its end.
std::string read_to_end(int fd);

} // namespace mur
