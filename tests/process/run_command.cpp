#include "launched_mur.hpp"
#include "run_command.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace mur::test {

SpawnArgs::SpawnArgs(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env)
  : argv_strings(argv) {
  std::map<std::string, std::string> full = env;
  for (const char* k : {"PATH", "HOME"})
    if (!full.count(k))
      if (const char* v = std::getenv(k)) full[k] = v;
  for (const auto& [k, v] : full) env_strings.push_back(k + "=" + v);
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (auto& s : argv_strings) args.push_back(s.data());
  args.push_back(nullptr);
}

namespace {

// Starts argv with stdin /dev/null and stdout/stderr on the given write ends.
pid_t spawn_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                  const std::string& cwd, int out_write, int err_write) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_write, 1);
  posix_spawn_file_actions_adddup2(&fa, err_write, 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  SpawnArgs spawn_args(argv, env);
  pid_t pid;
  int rc = posix_spawn(&pid, spawn_args.args[0], &fa, nullptr, spawn_args.args.data(), spawn_args.envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(rc));
  return pid;
}

// Reads both pipes to their end, then reaps `pid`. Past `until` the child is SIGKILLed and
// reading stops (a grandchild may still hold the pipes). The first `skip_err` bytes of stderr
// are dropped.
Ran drain(pid_t pid, int out_read, int err_read, std::chrono::steady_clock::time_point until,
          std::chrono::milliseconds bound, std::size_t skip_err) {
  Ran ran;
  pollfd fds[2] = {{out_read, POLLIN, 0}, {err_read, POLLIN, 0}};
  std::string* sinks[2] = {&ran.out, &ran.err};
  int open = 2;
  bool killed = false;
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    const int rc = left.count() > 0 ? ::poll(fds, 2, static_cast<int>(left.count())) : 0;
    if (rc < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (rc == 0) { // past the bound: end the child and stop reading
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        std::size_t from = 0;
        if (i == 1 && skip_err > 0) {
          from = std::min(skip_err, static_cast<std::size_t>(n));
          skip_err -= from;
        }
        sinks[i]->append(buf + from, static_cast<std::size_t>(n) - from);
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (killed)
    ran.err += "\n[run_command: killed after " + std::to_string(bound.count()) + " ms without ending]\n";
  return ran;
}

} // namespace

Ran run_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                const std::string& cwd, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2 failed");
  pid_t pid = -1;
  try {
    pid = spawn_child(argv, env, cwd, out_pipe[1], err_pipe[1]);
  } catch (...) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw;
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  return drain(pid, out_pipe[0], err_pipe[0], until, bound, 0);
}

Ran run_command_held(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                     const std::function<void()>& while_held, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2 failed");
  // Fill stderr's pipe to the last byte, non-blocking only while filling (the flag belongs to
  // the open pipe, which the child shares).
  const int flags = ::fcntl(err_pipe[1], F_GETFL);
  ::fcntl(err_pipe[1], F_SETFL, flags | O_NONBLOCK);
  std::size_t filler = 0;
  const std::string block(4096, '#');
  for (std::size_t chunk : {block.size(), std::size_t(1)})
    for (ssize_t n; (n = ::write(err_pipe[1], block.data(), chunk)) > 0;) filler += static_cast<std::size_t>(n);
  ::fcntl(err_pipe[1], F_SETFL, flags);
  pid_t pid = -1;
  try {
    pid = spawn_child(argv, env, {}, out_pipe[1], err_pipe[1]);
  } catch (...) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw;
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  // Blocked writing to stderr: /proc/<pid>/syscall names the write system call and fd 2. Checked
  // again whenever 10 ms pass without the child ending, until the bound.
  const std::string in_write = std::to_string(SYS_write) + " 0x2 ";
  bool held = false;
  while (!held && std::chrono::steady_clock::now() < until) {
    held = read_bytes("/proc/" + std::to_string(pid) + "/syscall").rfind(in_write, 0) == 0;
    if (!held && gone_within(pid, std::chrono::milliseconds(10))) break;
  }
  if (held) while_held();
  Ran ran = drain(pid, out_pipe[0], err_pipe[0], until, bound, filler);
  if (!held) throw std::runtime_error("the child never blocked writing to its stderr; it printed:\n" + ran.err);
  return ran;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mur-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

} // namespace mur::test
