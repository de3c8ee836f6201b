// stdio_process.cpp — see stdio_process.hpp.
#include "os/stdio_process.hpp"

#include "os/line_buffer.hpp"
#include "os/poll_set.hpp"
#include "os/wake_pipe.hpp"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <deque>
#include <mutex>
#include <thread>

namespace mur {

struct StdioProcess::Impl {
  StdioStart start;
  std::function<void(std::string)> on_line;
  std::function<void(StdioEnd)> on_end;
  ChildPid pid; // in the caller's process group
  std::atomic<bool> ended{false};
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::deque<std::string> outbox; // under mu
  WakePipe wake;
  std::thread thread;

  void run(PipedProgram child);
};

std::string describe(const StdioEnd& end) {
  std::string why = !end.started        ? "could not start: " + end.start_error
                    : end.line_too_long ? "wrote a line over the 16 MiB bound and was stopped"
                    : end.signal != 0   ? "was killed by signal " + std::to_string(end.signal)
                                        : "exited with code " + std::to_string(end.exit_status);
  if (!end.err_tail.empty()) why += "; its stderr ended: " + end.err_tail;
  return why;
}

void StdioProcess::Impl::run(PipedProgram child) {
  UniqueFd& in = child.in;
  StdioEnd end;
  LineBuffer lines(start.line_cap);
  std::string pending; // the line being written
  bool out_open = true, err_open = true, exited = false;
  auto err_tail = [&](const char* data, std::size_t n) { keep_tail(end.err_tail, data, n, start.stderr_tail); };
  auto take_lines = [&](const char* data, std::size_t n) {
    lines.feed(data, n, [&](std::string line) {
      if (line.size() >= start.line_cap) {
        end.line_too_long = true;
        pid.kill(ChildPid::Target::process); // nothing once it was reaped
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
    PollSet fds;
    const int wake_at = fds.add(true, wake.fd());
    const int in_at = fds.add(in.valid() && !pending.empty(), in.get(), POLLOUT);
    const int out_at = fds.add(out_open, child.out.get());
    const int err_at = fds.add(err_open, child.err.get());
    const int pid_at = fds.add(!exited, child.pidfd.get());
    const int r = fds.wait(exited ? 0 : -1);
    if (r < 0 && errno == EINTR) continue;
    if (fds.events(wake_at) & POLLIN) {
      char drain[64];
      while (::read(wake.fd(), drain, sizeof drain) > 0) {
      }
      if (stopping) pid.kill(ChildPid::Target::process); // nothing once it was reaped
    }
    if (fds.events(in_at) & (POLLOUT | POLLERR | POLLHUP)) {
      const ssize_t w = ::write(in.get(), pending.data(), pending.size());
      if (w > 0) pending.erase(0, static_cast<std::size_t>(w));
      if (w < 0 && errno != EAGAIN && errno != EINTR) in.reset(); // it closed its stdin
    }
    if (fds.events(out_at)) out_open = read_now(child.out.get(), take_lines);
    if (fds.events(err_at)) err_open = read_now(child.err.get(), err_tail);
    if (fds.events(pid_at) & POLLIN) {
      exited = true;
      in.reset();
      reap_into(pid, end);
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
  start_on_thread<StdioEnd>(*impl_, /*own_group=*/false);
}

StdioProcess::~StdioProcess() {
  // The run's thread kills it (only that thread knows whether it was reaped), then ends.
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

pid_t StdioProcess::pid() const { return impl_->pid.get(); }

} // namespace mur
