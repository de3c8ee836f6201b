// The retention pass over $MURMUR_HOME/formations/ (launcher/base/formation_dirs.hpp,
// docs/spec/formation.md §Retention): the entry's trace.retain removes this project's old, ended
// formation directories, newest first by id with the current one counted, and touches nothing
// else. Each test has its own $MURMUR_HOME; formation ids are made with the mint times it needs.
#include "launcher/base/formation_dirs.hpp"

#include "member/running_record.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/process_start.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// A $MURMUR_HOME of one test's own, with two project directories.
struct RetentionHome : mur::test::TempHome {
  std::string project, other_project;
  RetentionHome() : mur::test::TempHome("retention") {
    fs::create_directories(dir / "other");
    project = (dir / "project").string();
    other_project = (dir / "other").string();
  }
  fs::path formations() const { return dir / "home" / "formations"; }
  bool exists(const std::string& id) const { return fs::exists(fs::symlink_status(formations() / id)); }
};

// A formation id minted `ago` before now (negative: in the future); `n` tells ids of one ms apart.
std::string formation_minted(std::chrono::milliseconds ago, unsigned char n = 0) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  const unsigned char rand_b[8] = {n, 1, 2, 3, 4, 5, 6, 7};
  return std::string(mur::ids::formation) + mur::ids::uuid7_hex(static_cast<std::uint64_t>((now - ago).count()), 0x123, rand_b);
}

// A formation directory of `project` with one peer directory, whose launcher has ended (its pid
// is this process's, but with another start stamp: the pid was reused).
void ended_formation(const std::string& id, const std::string& project) {
  mur::make_formation_dir(id, project, ::getpid(), "1");
  REQUIRE(mur::make_peer_dir(id, "coder").refusal.empty());
  std::ofstream(mur::formation_dir(id) + "/coder/notes.txt") << "work";
}

mur::Retention keep(std::optional<int> sessions, std::optional<std::chrono::milliseconds> age = {}) {
  mur::Retention r;
  r.max_sessions = sessions;
  r.max_age = age;
  return r;
}

} // namespace

TEST_CASE("retention by max_sessions removes this project's older ended formations past the newest N", "[unit][retention]") {
  RetentionHome h;
  const std::string f1 = formation_minted(50min), f2 = formation_minted(40min), f3 = formation_minted(30min),
                    f4 = formation_minted(20min), current = formation_minted(1min), newer = formation_minted(-1min);
  for (const auto& id : {f1, f3, f4, current, newer}) ended_formation(id, h.project);
  // f2's launcher still runs: it stays, and keeps its rank.
  mur::make_formation_dir(f2, h.project, ::getpid(), mur::process_start_of(::getpid()));
  // Not candidates, however old: another project's formation, a formation directory without a
  // marker, a symlink named like a formation, a name that is no formation id.
  const std::string foreign = formation_minted(60min, 1), unmarked = formation_minted(61min, 2),
                    linked = formation_minted(62min, 3), target = formation_minted(63min, 4);
  ended_formation(foreign, h.other_project);
  fs::create_directories(h.formations() / unmarked / "coder");
  ended_formation(target, h.project);
  fs::rename(h.formations() / target, h.dir / "elsewhere");
  fs::create_directory_symlink(h.dir / "elsewhere", h.formations() / linked);
  fs::create_directories(h.formations() / "frm_notanid");
  fs::create_directories(h.formations() / "notes");

  // Newest first: newer (0), current (1), f4 (2), f3 (3), f2 (4, live), f1 (5).
  const auto lines = mur::apply_retention(keep(2), current, h.project);
  CHECK(lines == std::vector<std::string>{"retention: removed formation " + f4 + " (max_sessions)",
                                          "retention: removed formation " + f3 + " (max_sessions)",
                                          "retention: removed formation " + f1 + " (max_sessions)"});
  for (const auto& gone : {f1, f3, f4}) CHECK_FALSE(h.exists(gone));
  for (const auto& kept : {f2, current, newer, foreign, unmarked, linked, std::string("frm_notanid"), std::string("notes")}) {
    INFO(kept);
    CHECK(h.exists(kept));
  }
  CHECK(fs::exists(h.dir / "elsewhere" / "coder" / "notes.txt")); // a link is never followed
  CHECK(fs::exists(h.formations() / foreign / "coder" / "notes.txt"));

  // Run again with room for everything: nothing more goes.
  CHECK(mur::apply_retention(keep(10), current, h.project).empty());
}

TEST_CASE("retention by max_age removes what was minted too long ago, naming max_age when both apply", "[unit][retention]") {
  RetentionHome h;
  const std::string old = formation_minted(3h), young = formation_minted(10min), current = formation_minted(0ms);
  for (const auto& id : {old, young, current}) ended_formation(id, h.project);
  SECTION("max_age alone") {
    CHECK(mur::apply_retention(keep(std::nullopt, 1h), current, h.project) ==
          std::vector<std::string>{"retention: removed formation " + old + " (max_age)"});
    CHECK(h.exists(young));
  }
  SECTION("both: the old one is over both, the young one over the count") {
    CHECK(mur::apply_retention(keep(1, 1h), current, h.project) ==
          std::vector<std::string>{"retention: removed formation " + young + " (max_sessions)",
                                   "retention: removed formation " + old + " (max_age)"});
  }
  CHECK(h.exists(current));
}

TEST_CASE("retention without a policy, or with a live member, removes nothing", "[unit][retention]") {
  RetentionHome h;
  const std::string old = formation_minted(3h), current = formation_minted(0ms);
  for (const auto& id : {old, current}) ended_formation(id, h.project);
  CHECK(mur::apply_retention(keep(std::nullopt), current, h.project).empty()); // no trace.retain: nothing removed
  CHECK(h.exists(old));

  SECTION("a running record names it and its process runs") {
    mur::RunningRecord r;
    r.session_id = mur::ids::mint(mur::ids::session);
    r.pid = ::getpid();
    r.process_start = mur::process_start_of(::getpid());
    r.formation_id = old;
    mur::write_running_record(r);
    CHECK(mur::apply_retention(keep(1, 1h), current, h.project).empty());
    CHECK(h.exists(old));
  }
  SECTION("the running records cannot be read: every candidate counts as live") {
    std::ofstream(h.dir / "home" / "running") << "not a directory"; // readable as no directory
    CHECK(mur::apply_retention(keep(1, 1h), current, h.project).empty());
    CHECK(h.exists(old));
  }
}
