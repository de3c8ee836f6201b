// The session of an agent program that runs in the user's directory (capsule/session_store.hpp):
// made in $MURMUR_HOME/sessions/, linked from <workdir>/.murmur/<ses>; a reader trusts a link only
// when it leads straight to a session in the store, and a real directory as before.
#include "capsule/session_store.hpp"
#include "member/session_dir.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace fs = std::filesystem;

namespace {

// A $MURMUR_HOME and a project directory of one test's own.
struct TempHome : mur::test::TempHome {
  TempHome() : mur::test::TempHome("session-store") {}
};

const std::string ses = "ses_01JABCDEFGHJKMNPQRSTVWXYZ0";

} // namespace

TEST_CASE("a session made in the store is a link in the workdir and a directory in the store", "[unit][session-store]") {
  TempHome t;
  const mur::SessionDir d = mur::make_session_dir((t.dir / "project").string(), ses, mur::session_store());
  const fs::path place = t.dir / "project" / ".murmur" / ses;
  CHECK(fs::is_symlink(place));
  CHECK(fs::canonical(place) == fs::canonical(t.dir / "home" / "sessions" / ses));
  CHECK(d.path == mur::session_store() + "/" + ses);
  CHECK(fs::is_directory(fs::path(d.path) / "out"));
  CHECK(mur::trusted_session_place(place.string()));
}

TEST_CASE("a session made without a store is a real directory in the workdir, and trusted", "[unit][session-store]") {
  TempHome t;
  const mur::SessionDir d = mur::make_session_dir((t.dir / "project").string(), ses);
  CHECK(d.path == (t.dir / "project" / ".murmur" / ses).string());
  CHECK(!fs::is_symlink(d.path));
  CHECK(mur::trusted_session_place(d.path));
}

TEST_CASE("a link that leads out of the store, or to another session's place, is not a session", "[unit][session-store]") {
  TempHome t;
  mur::make_session_dir((t.dir / "project").string(), ses, mur::session_store());
  const fs::path place = t.dir / "project" / ".murmur" / ses;
  // Re-pointed to a directory the program made, holding a trace of its choosing.
  fs::create_directories(t.dir / "project" / "fake" / ses);
  std::ofstream(t.dir / "project" / "fake" / ses / "trace.jsonl") << "{}\n";
  fs::remove(place);
  fs::create_directory_symlink(t.dir / "project" / "fake" / ses, place);
  CHECK(!mur::trusted_session_place(place.string()));
  // Pointed into the store, but under another name than its own.
  const std::string other = "ses_01JABCDEFGHJKMNPQRSTVWXYZ1";
  fs::remove(place);
  fs::create_directory_symlink(t.dir / "home" / "sessions" / ses, t.dir / "project" / ".murmur" / other);
  CHECK(!mur::trusted_session_place((t.dir / "project" / ".murmur" / other).string()));
  // Pointed at the store's own folder, or at nothing.
  fs::create_directory_symlink(t.dir / "home" / "sessions", place);
  CHECK(!mur::trusted_session_place(place.string()));
  fs::remove(place);
  fs::create_directory_symlink(t.dir / "nowhere", place);
  CHECK(!mur::trusted_session_place(place.string()));
}
