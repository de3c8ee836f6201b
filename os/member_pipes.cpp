#include "os/member_pipes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "messages/credentials/formation_channel.hpp"
#include "os/process_spawn.hpp"

namespace mur {

namespace {

UniqueFd at_least_three(int fd) {
  UniqueFd owned(fd);
  if (fd >= 3) return owned;
  int lifted = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (lifted < 0) throw std::system_error(errno, std::generic_category(), "fcntl(F_DUPFD_CLOEXEC)");
  return UniqueFd(lifted); // `owned` closes the low one
}

} // namespace

PipeEnds make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  UniqueFd r(fds[0]), w(fds[1]);
  return PipeEnds{at_least_three(r.release()), at_least_three(w.release())};
}

MemberPipes make_member_pipes() {
  MemberPipes pipes;
  pipes.channel = make_pipe();
  pipes.lifeline = make_pipe();
  return pipes;
}

pid_t spawn_member(const MemberSpawn& spawn, MemberPipes& pipes) {
  SpawnRequest request;
  request.program = spawn.program;
  request.argv = spawn.argv;
  request.env = spawn.env;
  set_env_entry(request.env, FORMATION_CHANNEL_ENV, std::to_string(MEMBER_CHANNEL_FD));
  set_env_entry(request.env, FORMATION_LIFELINE_ENV, std::to_string(MEMBER_LIFELINE_FD));
  request.inherit = {pipes.channel.read.get(), pipes.lifeline.read.get()};
  request.stdout_fd = spawn.stdout_fd;
  request.stderr_fd = spawn.stderr_fd;
  request.own_process_group = spawn.own_process_group;
  pid_t pid = spawn_process(request);
  pipes.channel.read.reset();
  pipes.lifeline.read.reset();
  return pid;
}

} // namespace mur
