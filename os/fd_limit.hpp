// fd_limit.hpp — the process's limit on open descriptors (RLIMIT_NOFILE), raised once at start.
//
// Invariant: the soft limit is raised to the hard limit (never above it, never lowered), so a
// door's connection ceiling (http/connection_ceiling.hpp) can sit well below the limit a process
// really has; the value returned is the soft limit in force afterwards.
// Rule: a door never stops accepting (docs/spec/choices.md §Hostile input): one that does for
// want of descriptors serves no one; the ceiling below the limit keeps accept() from failing so.
#pragma once

#include <cstdint>

namespace mur {

// Raises the soft RLIMIT_NOFILE to the hard limit; returns the soft limit now in force.
std::uint64_t raise_open_file_limit();

// The soft RLIMIT_NOFILE in force, as it is.
std::uint64_t open_file_limit();

} // namespace mur
