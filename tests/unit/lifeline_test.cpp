// The lifeline: a member sees EOF when the process holding the write end dies, even by SIGKILL;
// and a spawned member inherits exactly its channel and lifeline read ends.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "os/lifeline_watch.hpp"
#include "os/member_pipes.hpp"
#include "os/process_spawn.hpp"

using namespace mur;
using namespace std::chrono_literals;

namespace {

struct Flag {
  std::mutex m;
  std::condition_variable cv;
  int count = 0;
  void raise() {
    std::lock_guard<std::mutex> lock(m);
    ++count;
    cv.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(m);
    return cv.wait_for(lock, 30s, [&] { return count > 0; });
  }
};

// All of `fd` until EOF, waiting at most ~30 s in total (a hang fails instead of blocking).
std::string read_all(int fd) {
  std::string out;
  char buf[256];
  for (int rounds = 0; rounds < 300; ++rounds) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, std::size_t(n));
  }
  return out;
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

} // namespace

TEST_CASE("lifeline: EOF reaches the member when the holder of the write end is SIGKILLed",
          "[credentials][lifeline]") {
  MemberPipes pipes = make_member_pipes();
  // The "launcher": a process that holds the lifeline's only write end, and nothing else.
  SpawnRequest holder;
  holder.program = "/bin/sh";
  holder.argv = {"sh", "-c", "exec sleep 1000"};
  holder.env = current_environment();
  holder.inherit = {pipes.lifeline.write.get()};
  holder.own_process_group = true;
  const pid_t launcher = spawn_process(holder);
  pipes.lifeline.write.reset(); // this test keeps no write end

  // An in-process watcher on a copy of the read end ...
  Flag ended;
  UniqueFd watch_copy(::fcntl(pipes.lifeline.read.get(), F_DUPFD_CLOEXEC, 3));
  REQUIRE(watch_copy.valid());
  LifelineWatch watch(std::move(watch_copy), [&] { ended.raise(); });

  // ... and a member child process blocked reading its inherited lifeline (fd 4).
  PipeEnds result = make_pipe();
  MemberSpawn member;
  member.program = "/bin/sh";
  member.argv = {"sh", "-c", "cat <&\"$MURMUR_FORMATION_LIFELINE\" >/dev/null; echo eof"};
  member.env = current_environment();
  member.stdout_fd = result.write.get();
  const pid_t child = spawn_member(member, pipes);
  result.write.reset();
  CHECK_FALSE(pipes.lifeline.read.valid()); // the launcher side dropped its read copy

  CHECK(ended.count == 0);
  REQUIRE(::kill(launcher, SIGKILL) == 0);
  const int status = reap(launcher);
  CHECK(WIFSIGNALED(status));

  REQUIRE(ended.wait());
  CHECK(read_all(result.read.get()) == "eof\n");
  const int child_status = reap(child);
  CHECK(WIFEXITED(child_status));
  CHECK(ended.count == 1);
}

TEST_CASE("lifeline watch: stray bytes are discarded, EOF reported once, stop is silent",
          "[credentials][lifeline]") {
  {
    PipeEnds p = make_pipe();
    Flag ended;
    LifelineWatch watch(std::move(p.read), [&] { ended.raise(); });
    REQUIRE(::write(p.write.get(), "stray bytes", 11) == 11);
    p.write.reset();
    REQUIRE(ended.wait());
    watch.stop();
    CHECK(ended.count == 1);
  }
  {
    PipeEnds p = make_pipe();
    Flag ended;
    {
      LifelineWatch watch(std::move(p.read), [&] { ended.raise(); });
    } // destroyed while blocked: no report
    CHECK(ended.count == 0);
  }
}

TEST_CASE("a spawned member inherits no descriptor above 2 but its two read ends at 3 and 4",
          "[credentials][lifeline]") {
  MemberPipes pipes = make_member_pipes();
  const int channel_read = pipes.channel.read.get();
  // A descriptor that is NOT close-on-exec must still not reach the member.
  UniqueFd leaky(::fcntl(pipes.channel.write.get(), F_DUPFD, 40));
  REQUIRE(leaky.get() >= 40);
  PipeEnds out = make_pipe();
  MemberSpawn member;
  member.program = "/bin/sh";
  member.argv = {"sh", "-c",
                 "echo \"$MURMUR_FORMATION_CHANNEL $MURMUR_FORMATION_LIFELINE\"; "
                 "i=3; while [ $i -lt 64 ]; do [ -e /proc/$$/fd/$i ] && printf '%s ' $i; i=$((i+1)); done; "
                 "echo; read -r line <&3; echo \"$line\""};
  member.env = current_environment();
  member.env.push_back("MURMUR_FORMATION_CHANNEL=99"); // replaced, not duplicated
  member.stdout_fd = out.write.get();
  const pid_t child = spawn_member(member, pipes);
  out.write.reset();
  CHECK(::fcntl(channel_read, F_GETFD) < 0); // launcher's read copy closed
  REQUIRE(::write(pipes.channel.write.get(), "hello\n", 6) == 6);
  const std::string seen = read_all(out.read.get());
  reap(child);
  CHECK(seen == "3 4\n3 4 \nhello\n");
}
