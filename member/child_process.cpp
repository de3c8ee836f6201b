// child_process.cpp — see child_process.hpp.
#include "member/child_process.hpp"

#include "os/channel_writer.hpp"
#include "os/line_buffer.hpp"
#include "os/member_pipes.hpp"
#include "os/poll_set.hpp"
#include "os/pid_wait.hpp" // wait_pids_gone
#include "os/process_spawn.hpp"
#include "os/memory_file.hpp"
#include "os/program_starter.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace mur {

namespace {

constexpr std::size_t LINE_CAP = 64 * 1024; // a longer stdout/stderr line is cut there

} // namespace

// What the thread reads: stdout's first line, stderr's last lines.
struct ChildOutput {
  ChildProcess& child;
  const ChildEvents& events;
  LineBuffer lines[2]{LineBuffer(LINE_CAP), LineBuffer(LINE_CAP)};
  bool first = true;

  void line(int which, std::string text) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (which == 0) {
      if (first && events.first_line) events.first_line(text);
      first = false;
      return;
    }
    if (text.find("://") != std::string::npos) return; // a door's url stays out of any sentence
    child.tail_.add(std::move(text));
  }

  // Reads what is there; false at EOF or a hard error.
  bool drain(int which, int fd) {
    return lines[which].read_from(fd, [&](std::string text) { line(which, std::move(text)); });
  }
};

// Reads the child's stdout and stderr until both end, or until it exited (`pidfd` readable; -1:
// no pidfd, read to EOF): whatever it left in the pipes is read then, and a descendant holding
// them open is not waited for.
static void read_until_exit(ChildOutput& o, int out_fd, int err_fd, int pidfd) {
  bool open[2] = {true, true};
  const int fds[2] = {out_fd, err_fd};
  bool exited = pidfd < 0;
  while (open[0] || open[1]) {
    PollSet ps;
    const int at[2] = {ps.add(open[0], fds[0]), ps.add(open[1], fds[1])};
    const int pid_at = ps.add(!exited, pidfd);
    if (ps.wait(-1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i)
      if (ps.events(at[i])) open[i] = o.drain(i, fds[i]);
    if (ps.events(pid_at)) exited = true;
    if (exited) {
      for (int i = 0; i < 2; ++i)
        if (open[i]) o.drain(i, fds[i]);
      break;
    }
  }
}

ChildProcess::ChildProcess(UniqueFd lifeline_write) : lifeline_write_(std::move(lifeline_write)) {}

void ChildProcess::close_lifeline() {
  std::lock_guard<std::mutex> lock(mu_);
  abandoned_ = true;
  lifeline_write_.reset();
}

std::string ChildProcess::stderr_tail() const { return tail_.quoted("  "); }

void ChildProcess::run(ChildLaunch launch, const ChildEvents& events) {
  auto never = [&](const std::string& why) {
    pid_.never_started();
    if (events.ended) events.ended(-1, why);
  };
  std::string refusal = launch.prepare ? launch.prepare(launch) : std::string();
  if (!refusal.empty()) return never(refusal);

  PipeEnds in, out, err;
  try {
    in = make_pipe();
    out = make_pipe();
    err = make_pipe();
  } catch (const std::system_error& e) {
    return never(std::string("its pipes could not be made (") + e.what() + ")");
  }
  SpawnRequest rq;
  rq.program = launch.program;
  rq.argv = launch.argv;
  rq.env = launch.env;
  rq.cwd = launch.cwd;
  rq.inherit = {launch.lifeline_read.get()};
  rq.stdin_fd = in.read.get();
  rq.stdout_fd = out.write.get();
  rq.stderr_fd = err.write.get();
  rq.own_process_group = true;
  bool abandoned = false;
  {
    // Under the lock: an abandoned child is never started, and kill_group never sees a pid
    // before it is this child's.
    std::lock_guard<std::mutex> lock(mu_);
    abandoned = abandoned_;
    if (!abandoned) {
      try {
        // A sealed member's child starts through its starter: sealed as the member is, with a
        // starter of its own (os/program_starter.hpp).
        const int starter = program_starter();
        if (starter >= 0) {
          // With the listings its parent kept: sealed inside its parent's seal, it could not make them.
          UniqueFd listings = memory_file("mur-listings", remembered_listings());
          if (!listings.valid()) throw std::system_error(errno, std::generic_category(), "memfd_create");
          rq.inherit.push_back(listings.get());
          rq.env.push_back("MURMUR_LISTINGS_FD=" + std::to_string(2 + rq.inherit.size()));
          pid_.set(start_through(starter, rq, StartKind::sealed));
        } else {
          pid_.set(spawn_process(rq));
        }
      } catch (const std::system_error& e) {
        refusal = std::string("it could not be started (") + e.what() + ")";
      }
    }
  }
  if (abandoned) return never("its delegation ended before it started");
  if (!refusal.empty()) return never(refusal);
  const pid_t pid = this->pid();
  launch.lifeline_read.reset();
  in.read.reset();
  out.write.reset();
  err.write.reset();
  if (events.spawned) events.spawned(pid);

  // The grant: one line on its stdin, then end of input. A child already gone fails the write.
  write_channel_line(in.write.get(), launch.grant.expose());
  launch.grant = GrantLine::adopt(std::string());
  in.write.reset();

  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  set_nonblocking(out.read.get());
  set_nonblocking(err.read.get());
  ChildOutput o{*this, events};
  read_until_exit(o, out.read.get(), err.read.get(), pidfd.get());
  pidfd.reset();

  const int code = pid_.reap();
  if (events.ended) events.ended(code, "");
}

ChildProcesses::~ChildProcesses() { end_all(std::chrono::milliseconds(0)); }

void ChildProcesses::start(const std::shared_ptr<ChildProcess>& child, ChildLaunch launch, ChildEvents events) {
  std::lock_guard<std::mutex> lock(mu_);
  // Children reaped earlier leave: their threads are at (or past) their last step.
  for (std::size_t i = 0; i < children_.size();) {
    if (!children_[i]->reaped()) {
      ++i;
      continue;
    }
    if (threads_[i].joinable()) threads_[i].join();
    children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(i));
    threads_.erase(threads_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  children_.push_back(child);
  threads_.emplace_back([child, launch = std::move(launch), events = std::move(events)]() mutable {
    child->run(std::move(launch), events);
  });
}

void ChildProcesses::close_all() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& c : children_) c->close_lifeline();
}

void ChildProcesses::end_all(std::chrono::milliseconds grace) {
  std::vector<std::shared_ptr<ChildProcess>> children;
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    children.swap(children_);
    threads.swap(threads_);
  }
  std::vector<pid_t> live;
  for (auto& c : children) {
    c->close_lifeline();
    if (!c->reaped() && c->pid() > 0) live.push_back(c->pid());
  }
  if (!live.empty() && grace.count() > 0) wait_pids_gone(live, grace);
  for (auto& c : children) c->kill_group();
  for (auto& t : threads)
    if (t.joinable()) t.join();
}

} // namespace mur
