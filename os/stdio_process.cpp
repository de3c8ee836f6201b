// stdio_process.cpp — see stdio_process.hpp.
#include "os/stdio_process.hpp"

#include "os/line_buffer.hpp"
#include "os/member_pipes.hpp"
#include "os/unique_fd.hpp"
#include "os/wake_pipe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

namespace mur {

struct StdioProcess::Impl {
  StdioStart start;
  std::function<void(std::string)> on_line;
  std::function<void(StdioEnd)> on_end;
  pid_t pid = -1;
  std::atomic<bool> ended{false};
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::deque<std::string> outbox; // under mu
  WakePipe wake;
  std::thread thread;

  void run(UniqueFd in, UniqueFd out, UniqueFd err, UniqueFd pidfd);
};

std::string describe(const StdioEnd& end) {
  std::string why = !end.started        ? "could not start: " + end.start_error
                    : end.line_too_long ? "wrote a line over the 16 MiB bound and was stopped"
                    : end.signal != 0   ? "was killed by signal " + std::to_string(end.signal)
                                        : "exited with code " + std::to_string(end.exit_status);
  if (!end.err_tail.empty()) why += "; its stderr ended: " + end.err_tail;
  return why;
}

namespace {

void nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is there now into `sink`; false at EOF or on an error other than EAGAIN.
template <class Sink>
bool read_now(int fd, Sink&& sink) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      sink(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EINTR;
  }
}

} // namespace

void StdioProcess::Impl::run(UniqueFd in, UniqueFd out, UniqueFd err, UniqueFd pidfd) {
  StdioEnd end;
  LineBuffer lines(start.line_cap);
  std::string pending; // the line being written
  bool out_open = true, err_open = true, exited = false;
  auto keep_tail = [&](const char* data, std::size_t n) {
    end.err_tail.append(data, n);
    if (end.err_tail.size() > start.stderr_tail) end.err_tail.erase(0, end.err_tail.size() - start.stderr_tail);
  };
  auto take_lines = [&](const char* data, std::size_t n) {
    lines.feed(data, n, [&](std::string line) {
      if (line.size() >= start.line_cap) {
        end.line_too_long = true;
        ::kill(pid, SIGKILL);
        return;
      }
      if (!end.line_too_long) on_line(std::move(line));
    });
  };
  while (!exited || out_open || err_open) {
    if (pending.empty() && in.valid()) {
      std::lock_guard<std::mutex> lock(mu);
      if (!outbox.empty()) {
        pending = std::move(outbox.front()) + "\n";
        outbox.pop_front();
      }
    }
    pollfd fds[5];
    int n = 0;
    const int wake_at = n;
    fds[n++] = {wake.fd(), POLLIN, 0};
    const int in_at = in.valid() && !pending.empty() ? n : -1;
    if (in_at >= 0) fds[n++] = {in.get(), POLLOUT, 0};
    const int out_at = out_open ? n : -1;
    if (out_open) fds[n++] = {out.get(), POLLIN, 0};
    const int err_at = err_open ? n : -1;
    if (err_open) fds[n++] = {err.get(), POLLIN, 0};
    const int pid_at = !exited ? n : -1;
    if (!exited) fds[n++] = {pidfd.get(), POLLIN, 0};
    const int r = ::poll(fds, static_cast<nfds_t>(n), exited ? 0 : -1);
    if (r < 0 && errno == EINTR) continue;
    if (fds[wake_at].revents & POLLIN) {
      char drain[64];
      while (::read(wake.fd(), drain, sizeof drain) > 0) {
      }
      if (stopping) ::kill(pid, SIGKILL);
    }
    if (in_at >= 0 && (fds[in_at].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t w = ::write(in.get(), pending.data(), pending.size());
      if (w > 0) pending.erase(0, static_cast<std::size_t>(w));
      if (w < 0 && errno != EAGAIN && errno != EINTR) in.reset(); // it closed its stdin
    }
    if (out_at >= 0 && fds[out_at].revents) out_open = read_now(out.get(), take_lines);
    if (err_at >= 0 && fds[err_at].revents) err_open = read_now(err.get(), keep_tail);
    if (pid_at >= 0 && (fds[pid_at].revents & POLLIN)) {
      exited = true;
      in.reset();
      int status = 0;
      ::waitpid(pid, &status, 0);
      if (WIFEXITED(status)) end.exit_status = WEXITSTATUS(status);
      else if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    }
    if (exited && r == 0) break; // nothing more is waiting in the pipes
  }
  ended = true;
  on_end(std::move(end));
}

StdioProcess::StdioProcess(StdioStart start, std::function<void(std::string)> on_line,
                           std::function<void(StdioEnd)> on_end)
  : impl_(std::make_shared<Impl>()) {
  impl_->start = std::move(start);
  impl_->on_line = std::move(on_line);
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
      // A server that closed its stdin fails the write (EPIPE), never this process.
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
      impl->run(std::move(i), std::move(o), std::move(e), std::move(p));
    });
  } catch (const std::exception& ex) {
    if (impl_->pid > 0) {
      ::kill(impl_->pid, SIGKILL);
      ::waitpid(impl_->pid, nullptr, 0);
    }
    impl_->ended = true;
    StdioEnd end;
    end.started = false;
    end.start_error = ex.what();
    auto on_end_now = std::move(impl_->on_end);
    impl_->thread = std::thread([on_end_now, end]() mutable { on_end_now(std::move(end)); });
  }
}

StdioProcess::~StdioProcess() {
  if (!impl_->ended && impl_->pid > 0) ::kill(impl_->pid, SIGKILL);
  impl_->stopping = true;
  impl_->wake.wake();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void StdioProcess::send(std::string line) {
  if (impl_->ended) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->outbox.push_back(std::move(line));
  }
  impl_->wake.wake();
}

pid_t StdioProcess::pid() const { return impl_->pid; }

} // namespace mur
