// confined_start.cpp — see confined_start.hpp. Runs single-threaded, before anything else, so
// fork is safe here.
#include "os/confined_start.hpp"

#include "messages/vocabulary/failure.hpp"
#include "os/capability_drop.hpp"
#include "os/egress_gate.hpp"
#include "os/harness_isolation.hpp"
#include "os/memory_file.hpp"
#include "os/program_starter.hpp"
#include "os/syscall_filter.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace mur {
namespace {

const int passed_on[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};

struct Layers {
  bool pid_namespace = false, user_namespace = false, private_proc = false, network = false;
  std::string why_no_network;
  int landlock = 0;
  bool capabilities_dropped = false, seccomp = false;
  std::string why_no_namespace;
};

constexpr const char* kernel_fix = "run mur on a Linux kernel that has what mur doctor lists under Isolation";
constexpr const char* started_by_mur_fix =
  "mur-confine is started by mur for each program of a member, with its plan; run mur run instead";

[[noreturn]] void refuse(const std::string& what, int err, const char* fix = kernel_fix) {
  std::fprintf(stderr, "error[E-ISO-001]: the program's isolation could not be set up: %s (%s)\nFix: %s\n",
               what.c_str(), std::strerror(err), fix);
  _exit(126);
}

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  ::close(fd);
  return ok;
}

void block(sigset_t& set) {
  sigemptyset(&set);
  for (int s : passed_on) sigaddset(&set, s);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

void unblock_all() {
  sigset_t none;
  sigemptyset(&none);
  for (int s : passed_on) ::signal(s, SIG_DFL);
  ::signal(SIGCHLD, SIG_DFL);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

void nothing(int) {}

// Ends this process the way `status` (a wait status) says: the same exit code, or the same signal.
[[noreturn]] void end_like(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const rlimit none{0, 0}; // a crash mirrored here leaves no core (it would hold the program's environment)
    ::setrlimit(RLIMIT_CORE, &none);
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    unblock_all();
    ::signal(sig, SIG_DFL);
    ::kill(::getpid(), sig);
  }
  _exit(125);
}

// Keeps 0, 1 and (unless `keep_stderr`) 2 away from the program's pipes, so that its end is
// seen when it ends.
void let_go_of_stdio(bool keep_stderr) {
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  for (int fd = 0; fd < (keep_stderr ? 2 : 3); ++fd) ::dup2(null, fd);
  ::close(null);
}

// Waits for `child`, passing the signals on; ends like it (or like the status it reported on
// `status_fd`, the program's own, when it sent one). Meanwhile each connection to one of the
// gate's listeners (the outer process only) is served by a child of its own. Whoever started
// this process ending (`parent`, a pidfd; the init's is the status pipe's other end) ends it
// and so everything below it.
[[noreturn]] void watch(pid_t child, int status_fd, bool is_init, int parent, const GateListeners& gate = {},
                        const IsolationPlan& plan = {}) {
  sigset_t set;
  block(set);
  if (is_init) // pid 1 takes a signal only when it has a handler
    for (int s : passed_on) ::signal(s, nothing);
  const int signals = ::signalfd(-1, &set, SFD_CLOEXEC);
  if (signals < 0) refuse("signalfd", errno);
  std::vector<pollfd> fds{{signals, POLLIN, 0}, {parent, static_cast<short>(is_init ? 0 : POLLIN), 0}};
  std::vector<int> ports; // of each listener after the first two pollfds: 0 is the proxy
  if (gate.proxy >= 0) {
    fds.push_back({gate.proxy, POLLIN, 0});
    ports.push_back(0);
    for (std::size_t i = 0; i < gate.forward_fds.size(); ++i) {
      fds.push_back({gate.forward_fds[i], POLLIN, 0});
      ports.push_back(plan.forward_ports.at(i));
    }
  }
  for (;;) {
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;
    if (fds[1].revents & (POLLIN | POLLERR | POLLHUP)) { // the member (or the outer process) is gone
      ::kill(child, SIGKILL);
      _exit(137);
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      const int client = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      const pid_t server = ::fork();
      if (server == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        unblock_all();
        serve_connection(client, ports[i - 2], plan.allow, plan.forward_ports, plan.notice_fd, plan.label);
      }
      ::close(client);
    }
    if (!(fds[0].revents & POLLIN)) continue;
    signalfd_siginfo info{};
    if (::read(signals, &info, sizeof info) != ssize_t(sizeof info)) continue;
    const int sig = static_cast<int>(info.ssi_signo);
    if (sig != SIGCHLD) {
      ::kill(child, sig);
      continue;
    }
    int status = 0;
    for (pid_t w; (w = ::waitpid(-1, &status, WNOHANG)) > 0;) {
      if (w != child) continue; // an orphan the program left: reaped
      if (is_init) {
        (void)!::write(status_fd, &status, sizeof status);
        _exit(0); // the kernel now ends every other process of the namespace
      }
      int program_status = 0;
      if (status_fd >= 0 && ::read(status_fd, &program_status, sizeof program_status) == ssize_t(sizeof program_status))
        end_like(program_status);
      end_like(status);
    }
  }
}

void drop_capabilities(Layers& layers) {
  std::string what;
  if (const int err = drop_all_capabilities(what)) refuse(what, err);
  layers.capabilities_dropped = true;
}

// In the process that becomes the program: Landlock, capabilities, the filter; then the program.
[[noreturn]] void seal_and_run(const IsolationPlan& plan, const IsolationPlan* bound, Layers layers,
                               const std::string& program, std::vector<char*>& args, bool probe) {
  unblock_all();
  // No controlling terminal: it can neither type into the operator's shell (TIOCSTI) nor read
  // what the operator types, and the terminal's signals reach only mur-confine's outer process.
  if (::setsid() < 0) {
    const int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (tty >= 0) {
      ::ioctl(tty, TIOCNOTTY);
      ::close(tty);
    }
  }
  try {
    restrict_to_plan(plan);
    if (bound) restrict_to_plan(*bound); // the member's own: no plan its member asks for reaches past it
  } catch (const Failure& f) {
    std::fprintf(stderr, "error[%s]: %s\nFix: %s\n", f.code().c_str(), f.message().c_str(), f.fix().c_str());
    _exit(126);
  }
  layers.landlock = plan.mechanism == IsolationPlan::Mechanism::landlock ? plan.landlock_abi : 0;
  // Per-process bounds, set while the capabilities that could raise them again are still held.
  auto set_limit = [](int resource, std::int64_t value, const char* what) {
    const rlimit r{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
    if (::setrlimit(resource, &r) != 0) refuse(what, errno);
  };
  if (plan.open_files) set_limit(RLIMIT_NOFILE, *plan.open_files, "setrlimit(RLIMIT_NOFILE)");
  if (plan.address_space_mib) set_limit(RLIMIT_AS, *plan.address_space_mib * 1024 * 1024, "setrlimit(RLIMIT_AS)");
  drop_capabilities(layers);
  // A kernel without seccomp filters says so to PR_GET_SECCOMP; any other failure is refused.
  const bool has_seccomp = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  const int filter = has_seccomp ? install_syscall_filter() : EINVAL;
  if (has_seccomp && filter != 0) refuse("the syscall filter (seccomp)", filter);
  layers.seccomp = filter == 0;
  if (probe) {
    std::printf("pid_namespace=%s user_namespace=%s private_proc=%s network=%s landlock=%d capabilities=%s seccomp=%s "
                "why=%s\n",
                layers.pid_namespace ? "yes" : "no", layers.user_namespace ? "yes" : "no",
                layers.private_proc ? "yes" : "no", layers.network ? "yes" : "no", layers.landlock,
                layers.capabilities_dropped ? "none" : "kept",
                layers.seccomp ? "yes" : "no", layers.why_no_namespace.empty() ? "-" : layers.why_no_namespace.c_str());
    std::fflush(stdout);
    _exit(0);
  }
  if (layers.network) { // the way out, for every client that honours these (Node's fetch: the last)
    const std::string proxy = "http://127.0.0.1:" + std::to_string(egress_proxy_port);
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"})
      ::setenv(name, proxy.c_str(), 1);
    for (const char* name : {"NO_PROXY", "no_proxy"}) ::unsetenv(name);
    ::setenv("NODE_USE_ENV_PROXY", "1", 1);
  }
  args.push_back(nullptr);
  ::execve(program.c_str(), args.data(), environ);
  std::fprintf(stderr, "error: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
  _exit(127);
}

// Its own pid and mount namespaces (in a user namespace of its own when not root). False, with
// the reason in `layers`, when the machine gives none.
bool enter_namespaces(Layers& layers) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  if (::unshare(CLONE_NEWPID | CLONE_NEWNS) == 0) return layers.pid_namespace = true;
  const int as_is = errno;
  if (::unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) != 0) {
    layers.why_no_namespace = std::string("unshare: ") + std::strerror(as_is) + ", with a user namespace: " +
                              std::strerror(errno);
    for (char& c : layers.why_no_namespace)
      if (c == ' ') c = '_';
    return false;
  }
  if (!write_file("/proc/self/setgroups", "deny") ||
      !write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
      !write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))
    refuse("mapping the user namespace", errno);
  layers.user_namespace = true;
  return layers.pid_namespace = true;
}

} // namespace

int confined_start_main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--starter") return program_starter_main();
  bool probe = false;
  std::string program;
  std::vector<char*> args;
  std::optional<IsolationPlan> bound; // from a member's starter (os/program_starter.hpp)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--probe") probe = true;
    else if (a == "--bound-fd" && i + 1 < argc && !bound) {
      const int fd = std::atoi(argv[++i]);
      if (fd < 3 || ::fcntl(fd, F_GETFD) == -1) refuse("no bound at descriptor " + std::string(argv[i]), EBADF, started_by_mur_fix);
      bound = decode_plan(read_to_end(fd));
      ::close(fd);
    }
    else if (a == "--program" && i + 1 < argc) program = argv[++i];
    else if (a == "--") {
      for (++i; i < argc; ++i) args.push_back(argv[i]);
    } else {
      refuse("it does not take " + a, EINVAL, started_by_mur_fix);
    }
  }
  if (!probe && (program.empty() || args.empty())) {
    refuse("no --program PATH -- ARGV… was given", EINVAL, started_by_mur_fix);
  }
  IsolationPlan plan;
  const bool has_plan = ::fcntl(3, F_GETFD) != -1;
  if (has_plan) {
    const std::string text = read_to_end(3);
    if (text.rfind(std::string("mechanism\0", 10), 0) != 0)
      refuse("the plan on descriptor 3 is not one", EINVAL, started_by_mur_fix);
    plan = decode_plan(text);
  } else if (!probe) {
    refuse("no plan on descriptor 3", EINVAL, started_by_mur_fix);
  }
  // Only 0, 1 and 2 go on to the program; the notices pipe (4) stays with the outer process.
  const bool notices = plan.notice_fd == 4 && ::fcntl(4, F_SETFD, FD_CLOEXEC) == 0;
  if (!notices) plan.notice_fd = -1;
  ::close_range(3, 3, 0);
  ::close_range(notices ? 5 : 4, ~0U, 0);
  // The member that started this: when it ends (killed, say, by its memory limit), so does all this.
  const pid_t parent = ::getppid();
  const int parent_fd = static_cast<int>(::syscall(SYS_pidfd_open, parent, 0));
  if (parent_fd < 0 || ::getppid() != parent) refuse("watching the member that started it", errno);
  ::fcntl(parent_fd, F_SETFD, FD_CLOEXEC);
  if (probe && !has_plan) {
    plan.network = true;
    if (landlock_abi_version() > 0) {
      plan.mechanism = IsolationPlan::Mechanism::landlock;
      plan.landlock_abi = landlock_abi_version();
      plan.full.push_back("/");
    }
  }
  Layers layers;
  if (!enter_namespaces(layers)) {
    if (!probe)
      std::fprintf(stderr, "warning W-ISO-002: the program runs without a pid namespace of its own (%s): what it "
                           "leaves behind outlives it, and it can see other processes\n", layers.why_no_namespace.c_str());
    if (!probe && plan.network)
      std::fprintf(stderr, "warning W-ISO-003: the program's network is not its own (no namespaces here): it reaches "
                           "every host, whatever capabilities.network.allow says\n");
    seal_and_run(plan, bound ? &*bound : nullptr, layers, program, args, probe);
  }

  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) refuse("pipe2", errno);
  sigset_t set;
  block(set); // before either fork: no signal is lost between them
  int gate_pair[2]; // the init hands the gate's listeners over it
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate_pair) != 0) refuse("socketpair", errno);
  const pid_t init = ::fork();
  if (init < 0) refuse("fork", errno);
  if (init > 0) {
    ::close(status_pipe[1]);
    ::close(gate_pair[1]);
    GateListeners gate;
    if (plan.network) {
      const auto fds = receive_fds(gate_pair[0], 1 + plan.forward_ports.size());
      if (!fds.empty()) {
        gate.proxy = fds[0];
        gate.forward_fds.assign(fds.begin() + 1, fds.end());
      }
    }
    ::close(gate_pair[0]);
    let_go_of_stdio(gate.proxy >= 0); // the gate's refusals are said on the program's stderr
    watch(init, status_pipe[0], false, parent_fd, gate, plan);
  }
  // The namespace's first process.
  ::close(status_pipe[0]);
  ::close(gate_pair[0]);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); // and, if the outer process ended before this, the watch sees it
  ::close(parent_fd);
  if (plan.notice_fd >= 0) ::close(plan.notice_fd); // the outer process's alone
  ::setsid(); // out of the terminal's process group: its signals reach the outer process alone, once
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) refuse("making mounts private", errno);
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0) layers.private_proc = true;
  else if (!probe)
    std::fprintf(stderr, "warning W-ISO-002: the program's /proc could not be its own (%s): it can see other "
                         "processes\n", std::strerror(errno));
  // Its own network, left only through the gate: its listeners go to the outer process, which
  // stayed in the machine's network.
  if (plan.network) {
    GateListeners gate;
    std::string why;
    if (::unshare(CLONE_NEWNET) != 0) {
      layers.why_no_network = std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
    } else if (!open_gate(plan.forward_ports, gate, why)) {
      refuse("the program's network gate: " + why, errno);
    } else {
      std::vector<int> fds{gate.proxy};
      fds.insert(fds.end(), gate.forward_fds.begin(), gate.forward_fds.end());
      if (!send_fds(gate_pair[1], fds)) refuse("handing the gate over", errno);
      for (int fd : fds) ::close(fd);
      layers.network = true;
    }
  }
  ::close(gate_pair[1]);
  if (plan.network && !layers.network && !probe)
    std::fprintf(stderr, "warning W-ISO-003: the program's network is not its own (%s): it reaches every host, "
                         "whatever capabilities.network.allow says\n", layers.why_no_network.c_str());
  const pid_t child = ::fork();
  if (child < 0) refuse("fork", errno);
  if (child == 0) {
    ::close(status_pipe[1]);
    seal_and_run(plan, bound ? &*bound : nullptr, layers, program, args, probe);
  }
  let_go_of_stdio(false);
  watch(child, status_pipe[1], true, status_pipe[1]);
}

} // namespace mur
