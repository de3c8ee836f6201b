#include "os/process_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <system_error>

#include "os/unique_fd.hpp"

extern char** environ;

namespace mur {

namespace {

struct FileActions {
  posix_spawn_file_actions_t fa;
  FileActions() { posix_spawn_file_actions_init(&fa); }
  ~FileActions() { posix_spawn_file_actions_destroy(&fa); }
};

struct Attrs {
  posix_spawnattr_t attr;
  Attrs() { posix_spawnattr_init(&attr); }
  ~Attrs() { posix_spawnattr_destroy(&attr); }
};

void check(int rc, const char* what) {
  if (rc != 0) throw std::system_error(rc, std::generic_category(), what);
}

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const std::string& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

} // namespace

pid_t spawn_process(const SpawnRequest& request) {
  const int first_free = 3 + int(request.inherit.size());
  // A source inside the slots being filled would be overwritten before it is read: lift it above
  // them first (close-on-exec, so the copy itself is never inherited).
  std::vector<UniqueFd> lifted;
  auto source = [&](int fd) {
    if (fd < 0 || fd >= first_free) return fd;
    int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, first_free);
    if (copy < 0) throw std::system_error(errno, std::generic_category(), "fcntl(F_DUPFD_CLOEXEC)");
    lifted.emplace_back(copy);
    return copy;
  };

  FileActions fa;
  const int stdio[3] = {source(request.stdin_fd), source(request.stdout_fd),
                        source(request.stderr_fd)};
  std::vector<int> inherit;
  for (int fd : request.inherit) inherit.push_back(source(fd));
  for (int target = 0; target < 3; ++target)
    if (stdio[target] >= 0) check(posix_spawn_file_actions_adddup2(&fa.fa, stdio[target], target), "adddup2");
  for (std::size_t i = 0; i < inherit.size(); ++i)
    check(posix_spawn_file_actions_adddup2(&fa.fa, inherit[i], 3 + int(i)), "adddup2");
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  check(posix_spawn_file_actions_addclosefrom_np(&fa.fa, first_free), "addclosefrom");
#else
#error "posix_spawn_file_actions_addclosefrom_np (glibc 2.34+) is needed to inherit nothing else"
#endif

  if (!request.cwd.empty()) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    check(posix_spawn_file_actions_addchdir_np(&fa.fa, request.cwd.c_str()), "addchdir");
#else
#error "posix_spawn_file_actions_addchdir_np (glibc 2.29+) is needed to start a child in its directory"
#endif
  }

  Attrs attrs;
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigset_t none;
  sigemptyset(&none);
  check(posix_spawnattr_setsigmask(&attrs.attr, &none), "setsigmask");
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, sig);
  check(posix_spawnattr_setsigdefault(&attrs.attr, &defaults), "setsigdefault");
  if (request.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    check(posix_spawnattr_setpgroup(&attrs.attr, 0), "setpgroup");
  }
  check(posix_spawnattr_setflags(&attrs.attr, flags), "setflags");

  std::vector<char*> argv = c_strings(request.argv);
  std::vector<char*> envp = c_strings(request.env);
  pid_t pid = -1;
  check(posix_spawn(&pid, request.program.c_str(), &fa.fa, &attrs.attr, argv.data(), envp.data()),
        "posix_spawn");
  return pid;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

void set_env_entry(std::vector<std::string>& env, const std::string& name,
                   const std::string& value) {
  const std::string prefix = name + "=";
  env.erase(std::remove_if(env.begin(), env.end(),
                           [&](const std::string& e) { return e.compare(0, prefix.size(), prefix) == 0; }),
            env.end());
  env.push_back(prefix + value);
}

std::string self_binary_path() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string path(buf, std::size_t(n));
  const std::string deleted = " (deleted)";
  if (path.size() > deleted.size() && path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0)
    path.resize(path.size() - deleted.size());
  return path;
}

std::string self_binary() {
  const std::string path = self_binary_path();
  if (path.empty() || ::access(path.c_str(), X_OK) != 0) return "/proc/self/exe"; // replaced on disk: the running image
  return path;
}

} // namespace mur
