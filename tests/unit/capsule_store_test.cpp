#include "capsule/capsule_store.hpp"
#include "messages/failure.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {
struct Tmp {
  fs::path root = fs::temp_directory_path() / ("mur-store-" + std::to_string(::getpid()) + "-" + std::to_string(n()++));
  static int& n() { static int i = 0; return i; }
  Tmp() { fs::create_directories(root / "src"); }
  ~Tmp() { fs::remove_all(root); }
  std::string store() const { return (root / "store").string(); }
  std::string src() const { return (root / "src").string(); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((root / "src" / rel).parent_path());
    std::ofstream(root / "src" / rel) << text;
  }
  std::vector<std::string> leftovers() const {
    std::vector<std::string> out;
    if (!fs::exists(store())) return out;
    for (auto& e : fs::recursive_directory_iterator(store()))
      if (e.path().filename().string().rfind(".tmp-", 0) == 0 || e.path().filename().string().rfind(".old-", 0) == 0)
        out.push_back(e.path().string());
    return out;
  }
};

std::string code_of(const std::function<void()>& f) {
  try { f(); } catch (const mur::Failure& e) { return e.code(); }
  return "accepted";
}
} // namespace

TEST_CASE("install stores the named files with a recorded sha256", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\ninference: {transport: http, endpoint: 'http://localhost:1/v1', "
                         "model: m, system_prompt_file: prompts/sys.md}\n");
  t.write("prompts/sys.md", "Be brief.\n");
  t.write("notes.txt", "not part of the capsule\n");
  auto out = mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false);
  CHECK(out.kind == mur::InstallOutcome::Kind::installed);
  const fs::path dir = fs::path(t.store()) / "w/1.0.0";
  CHECK(out.capsule.dir == dir.string());
  CHECK(fs::exists(dir / "murmur.yaml"));
  CHECK(fs::exists(dir / "prompts/sys.md"));
  CHECK_FALSE(fs::exists(dir / "notes.txt"));
  CHECK(fs::exists(dir / ".meta.json"));
  std::ifstream sha(dir / ".sha256");
  std::string recorded;
  sha >> recorded;
  CHECK(recorded == out.capsule.sha256);
  auto listed = mur::list_store(t.store(), mur::StoreScope::global);
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].problem.empty());
  CHECK(listed[0].sha256 == recorded);
}

TEST_CASE("the same bytes again is unchanged; other bytes need --force", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
  auto first = mur::install_capsule(t.src(), t.store(), mur::StoreScope::project, false);
  CHECK(mur::install_capsule(t.src(), t.store(), mur::StoreScope::project, false).kind ==
        mur::InstallOutcome::Kind::unchanged);
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\ndescription: changed\n");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::project, false); }) == "E-INS-002");
  // Nothing changed in the store.
  CHECK(mur::list_store(t.store(), mur::StoreScope::project).at(0).sha256 == first.capsule.sha256);
  auto forced = mur::install_capsule(t.src(), t.store(), mur::StoreScope::project, true);
  CHECK(forced.kind == mur::InstallOutcome::Kind::replaced);
  CHECK(forced.capsule.sha256 != first.capsule.sha256);
  CHECK(mur::list_store(t.store(), mur::StoreScope::project).at(0).description == "changed");
  CHECK(t.leftovers().empty());
}

TEST_CASE("bad sources are refused and leave nothing in the store", "[store]") {
  Tmp t;
  CHECK(code_of([&] { mur::install_capsule((t.root / "nope").string(), t.store(), mur::StoreScope::global, false); }) == "E-INS-001");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-MAN-001");
  t.write("murmur.yaml", "name: w\nversion: [1]\n");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-MAN-002");
  t.write("murmur.yaml", "name: w\nversion: 1\ninference: {transport: http, endpoint: 'http://localhost', model: m, system_prompt_file: gone.md}\n");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-MAN-002");
  CHECK_FALSE(fs::exists(fs::path(t.store()) / "w"));
}

TEST_CASE("an unwritable store is refused with E-INS-003 and no partial copy", "[store]") {
  if (::geteuid() == 0) {
    // root ignores directory permissions; use a file where a directory must be instead.
    Tmp t;
    t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
    fs::create_directories(t.store());
    std::ofstream(fs::path(t.store()) / "w") << "a file in the way";
    CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-INS-003");
    CHECK(t.leftovers().empty());
    return;
  }
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
  fs::create_directories(t.store());
  ::chmod(t.store().c_str(), 0500);
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-INS-003");
  ::chmod(t.store().c_str(), 0700);
  CHECK(t.leftovers().empty());
}

TEST_CASE("list marks damaged entries and ignores staging names", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
  mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false);
  fs::create_directories(fs::path(t.store()) / "w/.tmp-abc");
  fs::create_directories(fs::path(t.store()) / "w/2.0.0"); // no record at all
  std::ofstream(fs::path(t.store()) / "w/1.0.0/murmur.yaml", std::ios::app) << "# edit\n";
  auto listed = mur::list_store(t.store(), mur::StoreScope::global);
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].version == "1.0.0");
  CHECK(listed[0].problem.find("no longer match") != std::string::npos);
  CHECK(listed[1].problem.find("recorded sha256") != std::string::npos);
  CHECK(mur::list_store((t.root / "absent").string(), mur::StoreScope::global).empty());
}
