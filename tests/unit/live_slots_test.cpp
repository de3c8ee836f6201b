// The formation's live ledger on disk (os/live_slots.hpp): the ceiling is the number of slots
// beside the members, a slot is held by a lock, given back when its descriptor closes — and when
// its holder is killed with SIGKILL — and a ledger that is missing or damaged is named.
#include "os/live_slots.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mur;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/mur-live-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

std::string open_refusal(const std::string& dir) {
  try {
    LiveSlots::open(dir);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "opened";
}

} // namespace

TEST_CASE("live ledger: max_live less the members is how many slots there are, each held once", "[limits]") {
  TempDir t;
  const std::string dir = t.path + "/.live";
  make_live_ledger(dir, LiveLimit{5, 2});
  struct stat st {};
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat((dir + "/limit.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  LiveSlots slots = LiveSlots::open(dir);
  CHECK(slots.limit().max_live == 5);
  CHECK(slots.limit().members == 2);
  std::vector<UniqueFd> held;
  for (int i = 0; i < 3; ++i) {
    auto fd = slots.take();
    REQUIRE(fd);
    held.push_back(std::move(*fd));
  }
  CHECK_FALSE(slots.take()); // the fourth child would make six live
  // another reader of the same ledger (another process's view) sees the same slots taken
  CHECK_FALSE(LiveSlots::open(dir).take());
  held.erase(held.begin()); // a delegation ended: its slot is free
  auto again = LiveSlots::open(dir).take();
  CHECK(again);
  CHECK_FALSE(slots.take());
}

TEST_CASE("live ledger: a holder killed with SIGKILL gives its slot back", "[limits]") {
  TempDir t;
  make_live_ledger(t.path, LiveLimit{2, 1});
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    auto fd = LiveSlots::open(t.path).take();
    const char c = fd ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::close(ready[0]);
  CHECK(c == 'y');
  CHECK_FALSE(LiveSlots::open(t.path).take()); // the child holds the one slot
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(LiveSlots::open(t.path).take()); // the kernel let its lock go
}

TEST_CASE("live ledger: a missing or damaged ledger is named, and a bad limit is never written", "[limits]") {
  TempDir t;
  CHECK(open_refusal(t.path + "/nowhere") == "the formation's live ledger could not be read");
  for (const char* bad : {"", "{}", "[]", "{\"max_live\":2,\"members\":3}", "{\"max_live\":5000,\"members\":1}",
                          "{\"max_live\":\"4\",\"members\":1}", "{\"max_live\":4,\"members\":0}"}) {
    INFO(bad);
    std::ofstream(t.path + "/limit.json") << bad;
    CHECK(open_refusal(t.path) == "the formation's live ledger is damaged");
  }
  CHECK_THROWS_AS(make_live_ledger(t.path + "/x", LiveLimit{1, 2}), std::runtime_error);
  CHECK_THROWS_AS(make_live_ledger(t.path + "/x", LiveLimit{0, 0}), std::runtime_error);
  std::ofstream(t.path + "/file") << "x";
  CHECK_THROWS_AS(make_live_ledger(t.path + "/file", LiveLimit{4, 1}), std::runtime_error);
}
