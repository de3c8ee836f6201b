// A member process as the launcher watches it: a peer that closes its stdout but does not end
// is killed STDOUT_CLOSED_GRACE later (its whole group); one that ends by itself is not; the
// entry member is never killed for it. Each waits on the exit handler (an event), no timing.
#include <catch2/catch.hpp>

#include "launcher/run/member_console.hpp"
#include "launcher/run/member_process.hpp"
#include "os/member_pipes.hpp"
#include "os/process_spawn.hpp"

#include <csignal>
#include <future>

using namespace mur;

namespace {

struct Watched {
  std::shared_ptr<MemberProcess> proc;
  int code;
};

// Starts `/bin/sh -c script` as a member and waits for the watcher to report its end.
Watched run_member(const std::string& script, bool entry) {
  auto processes = std::make_shared<MemberProcesses>();
  auto console = std::make_shared<MemberConsole>(false);
  PipeEnds out = make_pipe(), err = make_pipe();
  SpawnRequest rq;
  rq.program = "/bin/sh";
  rq.argv = {"sh", "-c", script};
  rq.env = current_environment();
  rq.stdout_fd = out.write.get();
  rq.stderr_fd = err.write.get();
  rq.own_process_group = !entry;
  auto proc = std::make_shared<MemberProcess>();
  proc->name = "peer";
  proc->entry = entry;
  proc->pid.set(spawn_process(rq));
  out.write.reset();
  err.write.reset();
  auto ended = std::make_shared<std::promise<int>>();
  MemberOutputHandlers h;
  h.exited = [ended](int code) { ended->set_value(code); };
  processes->watch(proc, std::move(out.read), std::move(err.read), console, h);
  const int code = ended->get_future().get();
  processes->join_all();
  return {proc, code};
}

} // namespace

TEST_CASE("a peer that closes its stdout without exiting is killed 2 s later", "[unit][launcher]") {
  Watched w = run_member("exec 1>&-; sleep 30", false);
  CHECK(w.code == 128 + SIGKILL);
  CHECK(w.proc->killed_for_closed_stdout());
  CHECK(w.proc->reaped());
}

TEST_CASE("a peer that closes its stdout and then ends is not killed", "[unit][launcher]") {
  Watched w = run_member("exec 1>&-; exit 3", false);
  CHECK(w.code == 3);
  CHECK_FALSE(w.proc->killed_for_closed_stdout());
}

TEST_CASE("the entry member is never killed for closing its stdout", "[unit][launcher]") {
  Watched w = run_member("exec 1>&-; sleep 3; exit 4", true);
  CHECK(w.code == 4);
  CHECK_FALSE(w.proc->killed_for_closed_stdout());
}
