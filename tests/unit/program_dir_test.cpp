// Where an agent program runs (member/program_dir.hpp): in work/ beside its member's sessions
// when mur made the member's directory (a peer's under $MURMUR_HOME, a delegated child's under a
// .murmur/), the member's directory hidden from it; in the user's own directory otherwise. And the
// Landlock plan made from it leaves the member's .murmur/ out of every rule.
#include "member/program_dir.hpp"
#include "os/harness_isolation.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

// A fresh directory for one test's member and user directories.
struct TempDir : mur::test::TempDir {
  TempDir() : mur::test::TempDir("program-dir") {}
};

bool granted(const mur::IsolationPlan& plan, const fs::path& p) {
  for (const auto& f : plan.full) {
    const fs::path root(f);
    auto r = root.begin(), q = p.begin();
    bool inside = true;
    for (; r != root.end(); ++r, ++q)
      if (q == p.end() || *r != *q) { inside = false; break; }
    if (inside) return true;
  }
  return false;
}

} // namespace

TEST_CASE("a peer's program runs in work/, its member directory (and sessions) hidden", "[isolation][trace]") {
  TempDir t;
  const fs::path home = t.dir / "home";
  const fs::path member = home / "formations" / "frm_x" / "coder";
  fs::create_directories(member / ".murmur" / "ses_x");
  auto pd = mur::program_dir_for(member.string(), home.string());
  CHECK(pd.dir == (member / "work").string());
  CHECK(fs::is_directory(member / "work"));
  CHECK_FALSE(pd.trace_in_reach);
  REQUIRE(pd.hidden.size() == 1);
  CHECK(pd.hidden[0] == member.string());
  auto plan = mur::isolation_for(pd.dir, (t.dir / "capsule").string(), {home.string(), pd.hidden[0]});
  if (plan.mechanism == mur::IsolationPlan::Mechanism::landlock) {
    CHECK(granted(plan, member / "work" / "file"));
    CHECK_FALSE(granted(plan, member / ".murmur" / "ses_x" / "trace.jsonl"));
    CHECK_FALSE(plan.own_dir_limited);
  }
}

TEST_CASE("a delegated child's program runs in work/, the .murmur it lies under hidden", "[isolation][trace]") {
  TempDir t;
  const fs::path project = t.dir / "project";
  const fs::path child = project / ".murmur" / "ses_p" / "children" / "dlg_1";
  fs::create_directories(child);
  std::ofstream(project / "src.c") << "int main;\n"; // the project's files stay usable (those there at the turn's start)
  auto pd = mur::program_dir_for(child.string(), (t.dir / "home").string());
  CHECK(pd.dir == (child / "work").string());
  REQUIRE(pd.hidden.size() == 2);
  CHECK(pd.hidden[0] == child.string());
  CHECK(pd.hidden[1] == (project / ".murmur").string());
  auto plan = mur::isolation_for(pd.dir, (t.dir / "capsule").string(), pd.hidden);
  if (plan.mechanism == mur::IsolationPlan::Mechanism::landlock) {
    CHECK(granted(plan, child / "work" / "file"));
    CHECK_FALSE(granted(plan, project / ".murmur" / "ses_p" / "trace.jsonl"));
    CHECK_FALSE(granted(plan, child / ".murmur"));
    CHECK(granted(plan, project / "src.c"));
  }
}

TEST_CASE("the entry's (or mur run --capsule's) program runs in the user's directory, its trace in reach", "[isolation][trace]") {
  TempDir t;
  const fs::path project = t.dir / "project";
  fs::create_directories(project);
  auto pd = mur::program_dir_for(project.string(), (t.dir / "home").string());
  CHECK(pd.dir == project.string());
  CHECK(pd.hidden.empty());
  CHECK(pd.trace_in_reach);
  CHECK_FALSE(fs::exists(project / "work"));
}
