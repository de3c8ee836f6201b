// harness_run.cpp — see harness_run.hpp.
#include "os/harness_run.hpp"

#include "os/poll_set.hpp"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

namespace mur {

struct HarnessRun::Impl {
  HarnessStart start;
  std::function<void()> on_output;
  std::function<void(HarnessEnd)> on_end;
  ChildPid pid; // leads its own process group
  std::atomic<bool> ended{false};
  std::thread thread;

  void run(PipedProgram child);
};

namespace {

// Keeps the first `cap` bytes of what reached it; `cut` once more came.
void keep_head(std::string& head, const char* data, std::size_t n, std::size_t cap, bool& cut) {
  const std::size_t take = head.size() < cap ? std::min(cap - head.size(), n) : 0;
  head.append(data, take);
  if (take < n) cut = true;
}

} // namespace

void HarnessRun::Impl::run(PipedProgram child) {
  UniqueFd& in = child.in;
  HarnessEnd end;
  std::size_t written = 0;
  bool out_open = true, err_open = true, exited = false;
  auto last_note = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  while (!exited || out_open || err_open) {
    PollSet fds;
    const int in_at = fds.add(in.valid(), in.get(), POLLOUT);
    const int out_at = fds.add(out_open, child.out.get());
    const int err_at = fds.add(err_open, child.err.get());
    const int pid_at = fds.add(!exited, child.pidfd.get());
    // Once the program has exited, what it left in the pipes is read without waiting (a child of
    // its own that kept them open does not hold the turn).
    const int r = fds.wait(exited ? 0 : -1);
    if (r < 0 && errno == EINTR) continue;
    bool any = false;
    if (fds.events(in_at) & (POLLOUT | POLLERR | POLLHUP)) {
      const auto& text = start.stdin_text;
      const ssize_t w = ::write(in.get(), text.data() + written, text.size() - written);
      if (w > 0) written += static_cast<std::size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) written = text.size(); // it closed its stdin: fine
      if (written >= text.size()) in.reset();
    }
    if (fds.events(out_at))
      out_open = read_now(child.out.get(), [&](const char* data, std::size_t size) {
        any = true;
        keep_head(end.out, data, size, start.stdout_cap, end.cut);
      });
    if (fds.events(err_at))
      err_open = read_now(child.err.get(), [&](const char* data, std::size_t size) {
        any = true;
        keep_tail(end.err_tail, data, size, start.stderr_tail);
      });
    if (fds.events(pid_at) & POLLIN) {
      exited = true;
      in.reset();
      pid.kill(ChildPid::Target::group); // whatever it started in its group ends with the turn; the
                                         // unreaped leader still holds the group id
      reap_into(pid, end);
    }
    if (exited && r == 0) break; // nothing more is waiting in the pipes
    const auto now = std::chrono::steady_clock::now();
    if (any && on_output && now - last_note >= std::chrono::milliseconds(250)) {
      last_note = now;
      on_output();
    }
  }
  ended = true;
  on_end(std::move(end));
}

HarnessRun::HarnessRun(HarnessStart start, std::function<void()> on_output, std::function<void(HarnessEnd)> on_end)
  : impl_(std::make_unique<Impl>()) {
  impl_->start = std::move(start);
  impl_->on_output = std::move(on_output);
  impl_->on_end = std::move(on_end);
  start_on_thread<HarnessEnd>(*impl_, /*own_group=*/true);
}

HarnessRun::~HarnessRun() {
  kill();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void HarnessRun::kill() {
  impl_->pid.kill(ChildPid::Target::group); // nothing once it was reaped
}

pid_t HarnessRun::pid() const { return impl_->pid.get(); }

} // namespace mur
