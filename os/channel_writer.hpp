// channel_writer.hpp — the launcher writing one line to a member's formation channel.
//
// Invariant: a line is written whole, followed by `\n`, however the kernel splits the write and
// whatever signal interrupts it; a member that has gone away makes the write fail (false), never
// kills the launcher with SIGPIPE. A line with a `\n` in it is never written.
// Rule: the launcher writes the bundle, then callees' doors, to a pipe only that member inherits
// (docs/spec/door.md §The formation channel).
#pragma once

#include <string_view>

namespace mur {

// True when `line` + `\n` was written in full to `fd` (a blocking pipe write end).
// Throws std::invalid_argument if `line` contains `\n` (the message quotes nothing).
bool write_channel_line(int fd, std::string_view line);

} // namespace mur
