// member_pipes.hpp — the launcher's side of one member's formation channel and lifeline.
//
// Invariant: both pipes are created close-on-exec with every end ≥ 3; a member is started with
// exactly its own two read ends (channel at fd 3, lifeline at fd 4, named in its environment by
// MURMUR_FORMATION_CHANNEL / MURMUR_FORMATION_LIFELINE) and nothing else, after which the
// launcher drops its read copies. The launcher keeps the only write ends; it never writes to the
// lifeline, and dropping that end — or dying, even by SIGKILL — is what ends the member.
// Rule: the bundle is the first line of a pipe only its member inherits, its fd named by
// MURMUR_FORMATION_CHANNEL (docs/spec/door.md §The formation channel).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "os/unique_fd.hpp"

namespace mur {

struct PipeEnds {
  UniqueFd read;
  UniqueFd write;
};

// pipe2(O_CLOEXEC), both ends lifted to ≥ 3 if the standard slots were free. Throws std::system_error.
PipeEnds make_pipe();

struct MemberPipes {
  PipeEnds channel;
  PipeEnds lifeline;
};

MemberPipes make_member_pipes();

inline constexpr int MEMBER_CHANNEL_FD = 3;
inline constexpr int MEMBER_LIFELINE_FD = 4;

struct MemberSpawn {
  std::string program;
  std::vector<std::string> argv; // argv[0] included; never a token
  std::vector<std::string> env;  // MURMUR_FORMATION_CHANNEL/LIFELINE are replaced
  int stdout_fd = -1;
  int stderr_fd = -1;
  bool own_process_group = false;
};

// Starts the member with `pipes`' read ends at fds 3 and 4, then closes the launcher's copies
// of those read ends. Returns the pid. Throws std::system_error.
pid_t spawn_member(const MemberSpawn& spawn, MemberPipes& pipes);

} // namespace mur
