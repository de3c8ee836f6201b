#include "run_command.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
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

Ran run_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                const std::string& cwd, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2 failed");

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());

  SpawnArgs spawn_args(argv, env);

  pid_t pid;
  int rc = posix_spawn(&pid, spawn_args.args[0], &fa, nullptr, spawn_args.args.data(), spawn_args.envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(rc));
  }

  Ran ran;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
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
    if (rc == 0) { // past the bound: end the child; a grandchild may still hold the pipes, so stop reading
      ::kill(pid, SIGKILL);
      killed = true;
      for (auto& f : fds)
        if (f.fd >= 0) ::close(f.fd);
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (killed)
    ran.err += "\n[run_command: killed after " + std::to_string(bound.count()) + " ms without ending]\n";
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
