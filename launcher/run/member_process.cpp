#include "launcher/run/member_process.hpp"

#include "launcher/run/member_console.hpp"
#include "os/line_buffer.hpp"
#include "os/poll_set.hpp"
#include "os/piped_program.hpp"

#include <pthread.h>
#include <sodium.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace mur {

namespace {

using Clock = std::chrono::steady_clock;

int ms_until(Clock::time_point t) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

// Where a member's lines go: its ready line (stdout's first) to the handlers, the entry's stdout
// to the operator's console, every other line relayed with the member's name; stderr's last
// lines kept for the message that says why it ended.
struct MemberLines {
  MemberProcess& p;
  MemberConsole& console;
  const MemberOutputHandlers& h;
  bool first = true;

  void line(int which, std::string text) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (which == 0) {
      if (first) {
        first = false;
        if (h.ready_line) h.ready_line(text);
        if (p.entry) console.entry_line(text);
      } else if (p.entry) {
        console.entry_line(text);
      } else {
        console.relay(p.name, text);
      }
      return;
    }
    console.relay(p.name, text);
    p.tail.add(std::move(text));
  }
};

// Reads stdout and stderr to EOF. A peer whose stdout reached EOF is watched through `pidfd`
// too: not ended STDOUT_CLOSED_GRACE later ⇒ its group is killed. Returns once both streams
// reached EOF and, for such a peer, it either ended or was killed.
void read_until_eof(MemberProcess& p, int out, int err, int pidfd, MemberConsole& console, const MemberOutputHandlers& h) {
  const int fds[2] = {out, err};
  set_nonblocking(out);
  set_nonblocking(err);
  LineBuffer buf[2];
  bool open[2] = {true, true};
  MemberLines lines{p, console, h};
  bool watching = false, ended = false, killed = false; // the stdout-closed watch
  Clock::time_point kill_at{};
  auto waiting = [&] { return watching && !ended && !killed; };
  while (open[0] || open[1] || waiting()) {
    PollSet ps;
    const int at[2] = {ps.add(open[0], fds[0]), ps.add(open[1], fds[1])};
    const int pid_at = ps.add(waiting(), pidfd);
    const int rc = ps.wait(waiting() ? ms_until(kill_at) : -1);
    if (rc < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (rc == 0) { // the grace ran out with the process still there
      p.stdout_kill_ = true;
      p.kill_now();
      killed = true;
      continue;
    }
    if (ps.events(pid_at)) ended = true;
    for (int i = 0; i < 2; ++i) {
      if (!ps.events(at[i])) continue;
      open[i] = buf[i].read_from(fds[i], [&lines, i](std::string text) { lines.line(i, std::move(text)); });
      if (!open[i] && i == 0 && !p.entry && pidfd >= 0) {
        watching = true;
        kill_at = Clock::now() + STDOUT_CLOSED_GRACE;
      }
    }
  }
}

} // namespace

void MemberProcess::kill_now() { pid.kill(entry ? ChildPid::Target::process : ChildPid::Target::group); }

MemberProcesses::~MemberProcesses() {
  kill_all();
  join_all();
}

void MemberProcesses::watch(const std::shared_ptr<MemberProcess>& p, UniqueFd out, UniqueFd err,
                            std::shared_ptr<MemberConsole> console, MemberOutputHandlers handlers) {
  std::lock_guard<std::mutex> lock(mu_);
  procs_.push_back(p);
  threads_.emplace_back([p, out = std::move(out), err = std::move(err), console, handlers]() mutable {
    // The pid is not reaped before this thread reaps it, so the pidfd names this very process.
    UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, p->pid.get(), 0)));
    read_until_eof(*p, out.get(), err.get(), pidfd.get(), *console, handlers);
    pidfd.reset();
    out.reset();
    err.reset();
    const int code = p->pid.reap();
    if (handlers.exited) handlers.exited(code);
  });
}

void MemberProcesses::feed(UniqueFd in, std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  threads_.emplace_back([in = std::move(in), text = std::move(text)]() mutable {
    block_sigpipe_here(); // a member gone before it read: EPIPE, not a signal
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t w = ::write(in.get(), text.data() + done, text.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    sodium_memzero(text.data(), text.size());
  });
}

void MemberProcesses::kill_all() {
  for (auto& p : all()) p->kill_now();
}

void MemberProcesses::join_all() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads)
    if (t.joinable()) t.join();
}

std::vector<std::shared_ptr<MemberProcess>> MemberProcesses::all() const {
  std::lock_guard<std::mutex> lock(mu_);
  return procs_;
}

} // namespace mur
