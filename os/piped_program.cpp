// piped_program.cpp — see piped_program.hpp.
#include "os/piped_program.hpp"

#include "os/member_pipes.hpp"
#include "os/process_spawn.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <system_error>

namespace mur {

namespace {

// SIGKILL to `pid` (its whole group when `own_group`), then reaps it: a child that cannot be waited on.
void kill_and_reap(pid_t pid, bool own_group) {
  ::kill(own_group ? -pid : pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

} // namespace

PipedProgram start_piped(const ProgramStart& start, bool own_group) {
  PipeEnds in = make_pipe(), out = make_pipe(), err = make_pipe();
  SpawnRequest req;
  req.program = start.program;
  req.argv = start.argv;
  req.env = start.env;
  req.cwd = start.cwd;
  req.stdin_fd = in.read.get();
  req.stdout_fd = out.write.get();
  req.stderr_fd = err.write.get();
  req.own_process_group = own_group;
  PipedProgram child;
  child.pid = spawn_isolated(req, start.isolation);
  child.pidfd = UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, child.pid, 0)));
  if (!child.pidfd.valid()) {
    const int e = errno;
    kill_and_reap(child.pid, own_group);
    throw std::system_error(e, std::generic_category(), "pidfd_open");
  }
  child.in = std::move(in.write);
  child.out = std::move(out.read);
  child.err = std::move(err.read);
  set_nonblocking(child.in.get());
  set_nonblocking(child.out.get());
  set_nonblocking(child.err.get());
  return child; // the child's ends close with `in`, `out` and `err` here
}


void reap_into(ChildPid& pid, ProgramEnd& end) {
  const int status = pid.reap_status();
  if (status < 0) return;
  if (WIFEXITED(status)) end.exit_status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
}

void keep_tail(std::string& tail, const char* data, std::size_t n, std::size_t cap) {
  tail.append(data, n);
  if (tail.size() > cap) tail.erase(0, tail.size() - cap);
}

void block_sigpipe_here() {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
}

} // namespace mur
