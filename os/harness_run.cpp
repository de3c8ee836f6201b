// harness_run.cpp — see harness_run.hpp.
#include "os/harness_run.hpp"

#include "os/harness_isolation.hpp"
#include "os/member_pipes.hpp"
#include "os/process_spawn.hpp"
#include "os/unique_fd.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <thread>

namespace mur {

struct HarnessRun::Impl {
  HarnessStart start;
  std::function<void()> on_output;
  std::function<void(HarnessEnd)> on_end;
  pid_t pid = -1;
  std::atomic<bool> ended{false};
  std::thread thread;

  void run(UniqueFd in, UniqueFd out, UniqueFd err, UniqueFd pidfd);
};

namespace {

void nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is there now; false at EOF or on an error other than EAGAIN.
bool drain(int fd, std::string& keep, std::size_t cap, bool tail, bool& cut, bool& any) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      any = true;
      if (tail) {
        keep.append(buf, static_cast<std::size_t>(n));
        if (keep.size() > cap) keep.erase(0, keep.size() - cap);
      } else if (keep.size() < cap) {
        const std::size_t take = std::min(cap - keep.size(), static_cast<std::size_t>(n));
        keep.append(buf, take);
        if (take < static_cast<std::size_t>(n)) cut = true;
      } else {
        cut = true;
      }
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EINTR;
  }
}

} // namespace

void HarnessRun::Impl::run(UniqueFd in, UniqueFd out, UniqueFd err, UniqueFd pidfd) {
  HarnessEnd end;
  std::size_t written = 0;
  bool out_open = true, err_open = true, exited = false;
  auto last_note = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  while (!exited || out_open || err_open) {
    pollfd fds[4];
    int n = 0;
    const int in_at = in.valid() ? n : -1;
    if (in.valid()) fds[n++] = {in.get(), POLLOUT, 0};
    const int out_at = out_open ? n : -1;
    if (out_open) fds[n++] = {out.get(), POLLIN, 0};
    const int err_at = err_open ? n : -1;
    if (err_open) fds[n++] = {err.get(), POLLIN, 0};
    const int pid_at = !exited ? n : -1;
    if (!exited) fds[n++] = {pidfd.get(), POLLIN, 0};
    // Once the program has exited, what it left in the pipes is read without waiting (a child of
    // its own that kept them open does not hold the turn).
    const int r = ::poll(fds, static_cast<nfds_t>(n), exited ? 0 : -1);
    if (r < 0 && errno == EINTR) continue;
    bool any = false;
    if (in_at >= 0 && (fds[in_at].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const auto& text = start.stdin_text;
      const ssize_t w = ::write(in.get(), text.data() + written, text.size() - written);
      if (w > 0) written += static_cast<std::size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) written = text.size(); // it closed its stdin: fine
      if (written >= text.size()) in.reset();
    }
    if (out_at >= 0 && fds[out_at].revents) out_open = drain(out.get(), end.out, start.stdout_cap, false, end.cut, any);
    if (err_at >= 0 && fds[err_at].revents) {
      bool ignored = false;
      err_open = drain(err.get(), end.err_tail, start.stderr_tail, true, ignored, any);
    }
    if (pid_at >= 0 && (fds[pid_at].revents & POLLIN)) {
      exited = true;
      in.reset();
      int status = 0;
      ::waitpid(pid, &status, 0);
      if (WIFEXITED(status)) end.exit_status = WEXITSTATUS(status);
      else if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    }
    if (exited && r == 0) break; // nothing more is waiting in the pipes
    const auto now = std::chrono::steady_clock::now();
    if (any && on_output && now - last_note >= std::chrono::milliseconds(250)) {
      last_note = now;
      on_output();
    }
  }
  ::kill(-pid, SIGKILL); // whatever it started in its group ends with the turn
  ended = true;
  on_end(std::move(end));
}

HarnessRun::HarnessRun(HarnessStart start, std::function<void()> on_output, std::function<void(HarnessEnd)> on_end)
  : impl_(std::make_unique<Impl>()) {
  impl_->start = std::move(start);
  impl_->on_output = std::move(on_output);
  impl_->on_end = std::move(on_end);
  try {
    PipeEnds in = make_pipe(), out = make_pipe(), err = make_pipe();
    SpawnRequest req;
    req.program = impl_->start.program;
    req.argv = impl_->start.argv;
    req.env = impl_->start.env;
    req.cwd = impl_->start.cwd;
    req.stdin_fd = in.read.get();
    req.stdout_fd = out.write.get();
    req.stderr_fd = err.write.get();
    req.own_process_group = true;
    impl_->pid = spawn_isolated(req, impl_->start.isolation);
    in.read.reset();
    out.write.reset();
    err.write.reset();
    UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, impl_->pid, 0)));
    if (!pidfd.valid()) throw std::system_error(errno, std::generic_category(), "pidfd_open");
    nonblocking(in.write.get());
    nonblocking(out.read.get());
    nonblocking(err.read.get());
    impl_->thread = std::thread([impl = impl_.get(), i = std::move(in.write), o = std::move(out.read),
                                 e = std::move(err.read), p = std::move(pidfd)]() mutable {
      // A program that ends before it read its turn fails the write (EPIPE), never the process:
      // SIGPIPE is blocked on this thread, which alone writes to the program, wherever mur's code
      // runs (a test binary, too, does not ignore it); a pending one dies with the thread.
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
      impl->run(std::move(i), std::move(o), std::move(e), std::move(p));
    });
  } catch (const std::exception& ex) {
    if (impl_->pid > 0) {
      ::kill(-impl_->pid, SIGKILL);
      ::waitpid(impl_->pid, nullptr, 0);
    }
    impl_->ended = true;
    HarnessEnd end;
    end.started = false;
    end.start_error = ex.what();
    auto on_end_now = std::move(impl_->on_end);
    impl_->thread = std::thread([on_end_now, end]() mutable { on_end_now(std::move(end)); });
  }
}

HarnessRun::~HarnessRun() {
  kill();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void HarnessRun::kill() {
  if (impl_->pid > 0 && !impl_->ended) ::kill(-impl_->pid, SIGKILL);
}

pid_t HarnessRun::pid() const { return impl_->pid; }

} // namespace mur
