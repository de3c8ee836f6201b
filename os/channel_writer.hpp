// channel_writer.hpp — the launcher writing one line to a member's formation channel.
//
// Invariant: a line is written whole, followed by `\n`, however the kernel splits the write and
// whatever signal interrupts it; a member that has gone away makes the write fail (false), never
// kills the launcher with SIGPIPE. A line with a `\n` in it is never written.
// Seed: "The launcher writes each member's FormationBundle as the first line of a pipe only that
// member's mur run inherits ... and later lines carry callees' door URLs as they become known."
#pragma once

#include <string_view>

namespace mur {

// True when `line` + `\n` was written in full to `fd` (a blocking pipe write end).
// Throws std::invalid_argument if `line` contains `\n` (the message quotes nothing).
bool write_channel_line(int fd, std::string_view line);

} // namespace mur
