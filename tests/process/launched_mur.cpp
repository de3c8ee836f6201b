#include "launched_mur.hpp"
#include "run_command.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mur::test {

LaunchedMur::LaunchedMur(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         const std::string& cwd) {
  char tmpl[] = "/tmp/mur-launched-err-XXXXXX";
  int errfd = ::mkstemp(tmpl);
  if (errfd < 0) throw std::runtime_error("mkstemp failed");
  err_path_ = tmpl;
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, errfd, 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  SpawnArgs spawn_args(argv, env);
  // A process group of its own, as a shell gives a foreground job: signal_group is the Ctrl-C
  // of a terminal (the whole group), signal only the one process.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  int rc = posix_spawn(&pid_, spawn_args.args[0], &fa, &attr, spawn_args.args.data(), spawn_args.envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  ::close(errfd);
  out_ = pipefd[0];
  if (rc != 0) throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(rc));
}

LaunchedMur::~LaunchedMur() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait(wait_bound);
  }
  if (out_ >= 0) ::close(out_);
  ::unlink(err_path_.c_str());
}

std::string LaunchedMur::read_line(std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  std::string line;
  char c;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{out_, POLLIN, 0};
    const int rc = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0)
      throw std::runtime_error("mur printed no whole line on stdout within " + std::to_string(bound.count()) +
                               " ms (so far: \"" + line + "\")");
    ssize_t n = ::read(out_, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') return line;
    line.push_back(c);
  }
}

void LaunchedMur::signal(int sig) {
  if (!reaped_) ::kill(pid_, sig);
}

void LaunchedMur::signal_group(int sig) {
  if (!reaped_) ::kill(-pid_, sig);
}

int LaunchedMur::wait(std::chrono::milliseconds bound) {
  if (reaped_) return code_;
  if (!gone_within(pid_, bound)) ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  reaped_ = true;
  code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return code_;
}

std::string LaunchedMur::err() const { return read_bytes(err_path_); }

bool gone_within(pid_t pid, std::chrono::milliseconds bound) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;
  pollfd p{fd, POLLIN, 0};
  int rc;
  while ((rc = ::poll(&p, 1, static_cast<int>(bound.count()))) < 0 && errno == EINTR) {}
  ::close(fd);
  return rc > 0;
}

std::vector<pid_t> formation_processes(const std::string& formation_id) {
  std::vector<pid_t> out;
  const std::string needle = "MURMUR_FORMATION_ID=" + formation_id;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::string env = read_bytes("/proc/" + std::string(e->d_name) + "/environ");
    if (env.find(needle) == std::string::npos) continue;
    std::string stat = read_bytes("/proc/" + std::string(e->d_name) + "/stat");
    auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue; // a zombie has ended
    out.push_back(pid);
  }
  ::closedir(d);
  return out;
}

std::string read_bytes(const std::string& path) {
  // With read(2): a /proc file of a process that ends meanwhile fails the read (ESRCH), which
  // libstdc++'s filebuf would throw out of an iterator; here it is what was read so far.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

} // namespace mur::test
