#include "background_mur.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace mur::test {

BackgroundMur::BackgroundMur(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::map<std::string, std::string> full = env;
  for (const char* k : {"PATH", "HOME"})
    if (!full.count(k))
      if (const char* v = std::getenv(k)) full[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : full) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);
  int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  out_ = pipefd[0];
  if (rc != 0) throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(rc));
}

BackgroundMur::~BackgroundMur() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait();
  }
  if (out_ >= 0) ::close(out_);
}

std::string BackgroundMur::read_line() {
  std::string line;
  char c;
  for (;;) {
    ssize_t n = ::read(out_, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') return line;
    line.push_back(c);
  }
}

void BackgroundMur::signal(int sig) {
  if (!reaped_) ::kill(pid_, sig);
}

int BackgroundMur::wait() {
  if (reaped_) return code_;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  reaped_ = true;
  code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return code_;
}

} // namespace mur::test
