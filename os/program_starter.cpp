// program_starter.cpp — see program_starter.hpp. The starter runs single-threaded, so the clone
// and fork here are safe; the member's side is thread-safe (a socket pair per request).
#include "os/program_starter.hpp"

#include "messages/vocabulary/failure.hpp"
#include "os/capability_drop.hpp"
#include "os/egress_gate.hpp"
#include "os/memory_file.hpp"
#include "os/nul_fields.hpp"
#include "os/syscall_filter.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

namespace mur {
namespace {

std::atomic<int> starter_fd{-1};
std::atomic<pid_t> starter_pid{-1}; // when this process started its starter itself

constexpr std::size_t most_fds = 64; // reply, request, stdin, stdout, stderr and what is inherited

struct Reply {
  std::int32_t pid = -1;
  std::int32_t err = 0;
};

struct Request {
  StartKind kind = StartKind::confined;
  std::string program, cwd;
  bool own_group = false;
  std::vector<std::string> argv, env;
};

std::string encode(const SpawnRequest& r, StartKind kind) {
  std::string out;
  put_field(out, "kind", kind == StartKind::sealed ? "sealed" : "confined");
  put_field(out, "program", r.program);
  put_field(out, "cwd", r.cwd);
  put_field(out, "group", r.own_process_group ? "1" : "0");
  for (const auto& a : r.argv) put_field(out, "arg", a);
  for (const auto& e : r.env) put_field(out, "env", e);
  return out;
}

Request decode(const std::string& text) {
  Request r;
  for_each_field(text, [&](const std::string& key, const std::string& value) {
    if (key == "kind") r.kind = value == "sealed" ? StartKind::sealed : StartKind::confined;
    else if (key == "program") r.program = value;
    else if (key == "cwd") r.cwd = value;
    else if (key == "group") r.own_group = value == "1";
    else if (key == "arg") r.argv.push_back(value);
    else if (key == "env") r.env.push_back(value);
  });
  return r;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void serve(int sock, const std::string& bound_text, const std::string& confine);

// In the started process (a clone of the starter, a child of the member): its descriptors, its
// seal, then the program. Returns only with the errno of the step that failed.
int become(Request& r, const std::vector<int>& fds, const std::string& bound_text, const std::string& confine,
           int& report) {
  sigset_t none;
  sigemptyset(&none);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (r.own_group && ::setpgid(0, 0) != 0) return errno;
  const std::vector<int> inherit(fds.begin() + 5, fds.end());
  const int extra = 3 + int(inherit.size()); // the bound (confined) or its own starter (sealed)
  int extra_fd = -1;
  const IsolationPlan bound = decode_plan(bound_text);
  if (r.kind == StartKind::sealed) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return errno;
    const pid_t parent = ::getpid();
    const pid_t own = ::fork();
    if (own < 0) return errno;
    if (own == 0) { // the child's own starter: unsealed, as this one, with the same bound
      ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (::getppid() != parent) _exit(0);
      const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
      for (int fd = 0; fd < 3 && null >= 0; ++fd) ::dup2(null, fd);
      if (::dup2(pair[1], 3) != 3) _exit(1);
      ::close_range(4, ~0U, 0);
      serve(3, bound_text, confine);
    }
    ::close(pair[1]);
    extra_fd = pair[0];
    try {
      restrict_to_plan(bound);
    } catch (const std::exception&) {
      return errno ? errno : EPERM;
    }
    std::string what;
    if (const int err = drop_all_capabilities(what)) return err;
    if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0)
      if (const int err = install_syscall_filter()) return err;
    r.env.push_back("MURMUR_STARTER_FD=" + std::to_string(extra));
  } else {
    extra_fd = memory_file("mur-bound", bound_text).release();
    if (extra_fd < 0) return errno;
    std::vector<std::string> argv{"mur-confine", "--bound-fd", std::to_string(extra)};
    argv.insert(argv.end(), r.argv.begin() + (r.argv.empty() ? 0 : 1), r.argv.end());
    r.argv = std::move(argv);
    r.program = confine;
  }
  // Every source lifted above the slots first (a source inside them would be overwritten before
  // it is read), then placed; nothing else goes on.
  const int lift_to = extra + 1;
  auto lift = [&](int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, lift_to); };
  std::vector<int> sources{fds[2], fds[3], fds[4]};
  sources.insert(sources.end(), inherit.begin(), inherit.end());
  sources.push_back(extra_fd);
  for (int& fd : sources)
    if ((fd = lift(fd)) < 0) return errno;
  if ((report = lift(report)) < 0) return errno;
  for (std::size_t target = 0; target < sources.size(); ++target)
    if (::dup2(sources[target], int(target)) != int(target)) return errno;
  ::close_range(unsigned(lift_to), ~0U, CLOSE_RANGE_CLOEXEC);
  if (!r.cwd.empty() && ::chdir(r.cwd.c_str()) != 0) return errno;
  std::vector<char*> argv = c_strings(r.argv), envp = c_strings(r.env);
  ::execve(r.program.c_str(), argv.data(), envp.data());
  return errno;
}

// One request: its process started as a child of the member, or why not.
Reply start_one(const std::vector<int>& fds, const std::string& bound_text, const std::string& confine) {
  Reply reply;
  Request r = decode(read_to_end(fds[1]));
  if (r.program.empty() || r.argv.empty()) return reply.err = EINVAL, reply;
  int report[2]; // the started process's errno, when it never reached its program
  if (::pipe2(report, O_CLOEXEC) != 0) return reply.err = errno, reply;
  const long pid = ::syscall(SYS_clone, CLONE_PARENT | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  if (pid == 0) {
    ::close(report[0]);
    int out = report[1];
    const int err = become(r, fds, bound_text, confine, out);
    (void)!::write(out, &err, sizeof err);
    _exit(127);
  }
  ::close(report[1]);
  if (pid < 0) {
    reply.err = errno;
  } else {
    reply.pid = std::int32_t(pid);
    int err = 0;
    ssize_t n;
    while ((n = ::read(report[0], &err, sizeof err)) < 0 && errno == EINTR) {
    }
    if (n == ssize_t(sizeof err)) reply.err = err ? err : EIO;
  }
  ::close(report[0]);
  return reply;
}

[[noreturn]] void serve(int sock, const std::string& bound_text, const std::string& confine) {
  ::fcntl(sock, F_SETFD, FD_CLOEXEC);
  for (;;) {
    std::vector<int> fds = receive_fds_up_to(sock, most_fds);
    if (fds.empty()) _exit(0); // the member is gone (or spoke nonsense: it is its own starter)
    Reply reply;
    if (fds.size() >= 5) reply = start_one(fds, bound_text, confine);
    else reply.err = EINVAL;
    (void)!::send(fds[0], &reply, sizeof reply, MSG_NOSIGNAL);
    for (int fd : fds) ::close(fd);
  }
}

} // namespace

UniqueFd start_program_starter(const IsolationPlan& bound) {
  const std::string helper = confine_binary();
  if (helper.empty())
    throw Failure("E-ISO-001", "the member's isolation could not be set up: mur-confine is not beside " + self_binary(),
                  "install mur whole (cmake --install installs mur and mur-confine side by side), or run the build's "
                  "own build/mur");
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    throw Failure("E-ISO-001", std::string("the member's program starter: socketpair (") + std::strerror(errno) + ")",
                  "check the process's descriptor limit (ulimit -n)");
  UniqueFd mine(pair[0]), theirs(pair[1]);
  UniqueFd bound_fd = memory_file("mur-bound", encode_plan(bound));
  if (!bound_fd.valid())
    throw Failure("E-ISO-001", std::string("the member's program starter: memfd_create (") + std::strerror(errno) + ")",
                  "check the process's descriptor limit (ulimit -n)");
  SpawnRequest rq;
  rq.program = helper;
  rq.argv = {"mur-confine", "--starter"};
  rq.inherit = {theirs.get(), bound_fd.get()};
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  UniqueFd hold_null(null);
  rq.stdin_fd = rq.stdout_fd = null;
  try {
    starter_pid.store(spawn_process(rq)); // it ends when `mine` closes: end_program_starter
  } catch (const std::system_error& e) {
    throw Failure("E-ISO-001", std::string("the member's program starter could not be started (") + e.what() + ")",
                  "install mur whole (cmake --install installs mur and mur-confine side by side)");
  }
  return mine;
}

void use_program_starter(int fd) { starter_fd.store(fd); }

void end_program_starter() {
  const int fd = starter_fd.exchange(-1);
  if (fd >= 0) ::close(fd);
  const pid_t pid = starter_pid.exchange(-1);
  if (pid > 0) ::waitpid(pid, nullptr, 0); // it reads the end of its socket and exits
}
int program_starter() { return starter_fd.load(); }

int inherited_program_starter() {
  const char* v = std::getenv("MURMUR_STARTER_FD");
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long fd = std::strtol(v, &end, 10);
  if (*end != '\0' || fd < 3 || fd > 1 << 20) return -1;
  int type = 0;
  socklen_t len = sizeof type;
  if (::getsockopt(int(fd), SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET) return -1;
  ::fcntl(int(fd), F_SETFD, FD_CLOEXEC); // its own, not its programs'
  ::unsetenv("MURMUR_STARTER_FD");
  return int(fd);
}

pid_t start_through(int starter, const SpawnRequest& request, StartKind kind) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    throw std::system_error(errno, std::generic_category(), "socketpair");
  UniqueFd mine(pair[0]), theirs(pair[1]);
  UniqueFd text = memory_file("mur-start", encode(request, kind));
  if (!text.valid()) throw std::system_error(errno, std::generic_category(), "memfd_create");
  std::vector<int> fds{theirs.get(), text.get(), request.stdin_fd >= 0 ? request.stdin_fd : 0,
                       request.stdout_fd >= 0 ? request.stdout_fd : 1, request.stderr_fd >= 0 ? request.stderr_fd : 2};
  fds.insert(fds.end(), request.inherit.begin(), request.inherit.end());
  if (fds.size() > most_fds) throw std::system_error(EMFILE, std::generic_category(), "too many descriptors to hand on");
  if (!send_fds(starter, fds)) throw std::system_error(errno ? errno : EPIPE, std::generic_category(), "the program starter");
  theirs.reset();
  Reply reply;
  ssize_t n;
  while ((n = ::recv(mine.get(), &reply, sizeof reply, 0)) < 0 && errno == EINTR) {
  }
  if (n != ssize_t(sizeof reply)) throw std::system_error(EPIPE, std::generic_category(), "the program starter is gone");
  if (reply.err != 0) {
    if (reply.pid > 0) ::waitpid(reply.pid, nullptr, 0); // a child of ours that never became the program
    throw std::system_error(reply.err, std::generic_category(), "starting " + request.program);
  }
  return reply.pid;
}

int program_starter_main() {
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  const pid_t member = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (::getppid() != member || ::fcntl(3, F_GETFD) == -1 || ::fcntl(4, F_GETFD) == -1) {
    std::fprintf(stderr, "error[E-ISO-001]: mur-confine --starter is started by a member, with its socket and "
                         "bound\nFix: run mur run instead\n");
    return 126;
  }
  const std::string bound = read_to_end(4);
  ::close(4);
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 126;
  self[n] = '\0';
  serve(3, bound, self);
}

} // namespace mur
