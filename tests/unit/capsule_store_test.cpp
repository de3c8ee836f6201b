#include "capsule/capsule_store.hpp"
#include "capsule/harness_program.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/sha256.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
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
  // Writes each file of `files` (its path under src/, its text).
  void write(const std::map<std::string, std::string>& files) const {
    for (const auto& [rel, text] : files) write(rel, text);
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

TEST_CASE("install stores the folder whole with a recorded sha256", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\ninference: {transport: http, endpoint: 'http://localhost:1/v1', "
                         "model: m, system_prompt_file: prompts/sys.md}\n");
  t.write("prompts/sys.md", "Be brief.\n");
  t.write("notes.txt", "part of the capsule too\n");
  auto out = mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false);
  CHECK(out.kind == mur::InstallOutcome::Kind::installed);
  const fs::path dir = fs::path(t.store()) / "w/1.0.0";
  CHECK(out.capsule.dir == dir.string());
  CHECK(fs::exists(dir / "murmur.yaml"));
  CHECK(fs::exists(dir / "prompts/sys.md"));
  CHECK(fs::exists(dir / "notes.txt"));
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

TEST_CASE("the same bytes again is unchanged, other bytes need --force", "[store]") {
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

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
const char* process_manifest(const char* command) {
  static std::string text;
  text = std::string("name: h\nversion: 1.0.0\ninference: {transport: process, command: ") + command + "}\n";
  return text.c_str();
}
} // namespace

TEST_CASE("install copies every regular file but .murmur and VCS folders, keeping the x bit", "[store]") {
  Tmp t;
  t.write({{"murmur.yaml", process_manifest("[./bin/agent, --fast]")},
           {"bin/agent", "#!/bin/sh\necho hi\n"},
           {"lib/deep/data.json", "{}\n"},
           {".hidden", "dotfiles are files\n"},
           {".git/HEAD", "ref: refs/heads/main\n"},
           {"sub/.hg/store", "x"},
           {"sub/.svn/entries", "x"},
           {".murmur/artifacts/other/1.0.0/murmur.yaml", "name: other\nversion: 1.0.0\n"}});
  ::chmod((t.root / "src/bin/agent").c_str(), 0755);
  auto out = mur::install_capsule(t.src(), t.store(), mur::StoreScope::project, false);
  const fs::path dir = out.capsule.dir;
  CHECK(slurp(dir / "bin/agent") == "#!/bin/sh\necho hi\n");
  CHECK((fs::status(dir / "bin/agent").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK((fs::status(dir / "lib/deep/data.json").permissions() & fs::perms::owner_exec) == fs::perms::none);
  CHECK(slurp(dir / "lib/deep/data.json") == "{}\n");
  CHECK(fs::exists(dir / ".hidden"));
  CHECK_FALSE(fs::exists(dir / ".git"));
  CHECK_FALSE(fs::exists(dir / "sub/.hg"));
  CHECK_FALSE(fs::exists(dir / "sub/.svn"));
  CHECK_FALSE(fs::exists(dir / ".murmur"));
  // The digest is every path and its bytes, murmur.yaml first then by path.
  const std::string expected = mur::capsule_digest({{"murmur.yaml", slurp(t.root / "src/murmur.yaml")},
                                                    {".hidden", "dotfiles are files\n"},
                                                    {"bin/agent", "#!/bin/sh\necho hi\n"},
                                                    {"lib/deep/data.json", "{}\n"}});
  CHECK(out.capsule.sha256 == expected);
  const std::string meta = slurp(dir / ".meta.json");
  CHECK(meta.find("\"lib/deep/data.json\"") != std::string::npos);
  CHECK(meta.find(".git") == std::string::npos);
  // A file the manifest does not name is covered by the record: editing it is caught at admission.
  std::ofstream(dir / "lib/deep/data.json", std::ios::app) << "tampered";
  auto miss = mur::resolve_capsule(mur::StoreRoots{t.store(), (t.root / "none").string()}, "h", "1.0.0");
  REQUIRE(std::holds_alternative<mur::ResolveMiss>(miss));
  CHECK(std::get<mur::ResolveMiss>(miss).why.find("no longer match") != std::string::npos);
  // So is a file added to the installed copy.
  auto again = mur::install_capsule(t.src(), t.store(), mur::StoreScope::project, true);
  std::ofstream(fs::path(again.capsule.dir) / "extra.txt") << "planted";
  CHECK(std::holds_alternative<mur::ResolveMiss>(
    mur::resolve_capsule(mur::StoreRoots{t.store(), (t.root / "none").string()}, "h", "1.0.0")));
  fs::remove(fs::path(again.capsule.dir) / "extra.txt");
  CHECK(std::holds_alternative<mur::ResolvedCapsule>(
    mur::resolve_capsule(mur::StoreRoots{t.store(), (t.root / "none").string()}, "h", "1.0.0")));
}

TEST_CASE("a symlink inside the folder is copied as its file, one that leaves is refused", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
  t.write("real/prompt.md", "Be brief.\n");
  fs::create_symlink("real/prompt.md", t.root / "src/prompt.md");
  auto out = mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false);
  const fs::path copied = fs::path(out.capsule.dir) / "prompt.md";
  CHECK_FALSE(fs::is_symlink(copied));
  CHECK(slurp(copied) == "Be brief.\n");

  std::ofstream(t.root / "outside.txt") << "a secret outside the folder";
  fs::create_symlink(t.root / "outside.txt", t.root / "src/leak.txt");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, true); }) == "E-INS-004");
  fs::remove(t.root / "src/leak.txt");
  fs::create_symlink("../outside.txt", t.root / "src/leak.txt"); // relative, still out
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, true); }) == "E-INS-004");
  fs::remove(t.root / "src/leak.txt");
  fs::create_symlink("gone.txt", t.root / "src/dangling");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, true); }) == "E-INS-004");
  fs::remove(t.root / "src/dangling");
  fs::create_directory_symlink(t.root / "src/real", t.root / "src/again");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, true); }) == "E-INS-004");
  fs::remove(t.root / "src/again");
  // A refused install left the first copy as it was, with no staging leftovers.
  CHECK(mur::list_store(t.store(), mur::StoreScope::global).at(0).sha256 == out.capsule.sha256);
  CHECK(t.leftovers().empty());
  try {
    fs::create_symlink(t.root / "outside.txt", t.root / "src/leak.txt");
    mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, true);
    FAIL("accepted");
  } catch (const mur::Failure& f) {
    CHECK(f.message().find("leak.txt") != std::string::npos);
    CHECK_FALSE(f.fix().empty());
  }
}

TEST_CASE("a top-level .sha256 or .meta.json in the folder is refused", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
  t.write(".sha256", "0000\n");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-INS-001");
  fs::remove(t.root / "src/.sha256");
  t.write("sub/.sha256", "a file like any other below the top\n");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "accepted");
}

TEST_CASE("a process command names a program inside the folder, or a bare name for PATH", "[store][harness]") {
  Tmp t;
  t.write("murmur.yaml", process_manifest("[./bin/agent]"));
  CHECK(code_of([&] { mur::load_manifest_dir(t.src()); }) == "E-MAN-002");
  CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-MAN-002");
  t.write("bin/agent", "#!/bin/sh\n");
  CHECK(code_of([&] { mur::load_manifest_dir(t.src()); }) == "E-MAN-002"); // not executable
  ::chmod((t.root / "src/bin/agent").c_str(), 0755);
  CHECK(code_of([&] { mur::load_manifest_dir(t.src()); }) == "accepted");
  t.write("murmur.yaml", process_manifest("[../agent]"));
  CHECK(code_of([&] { mur::load_manifest_dir(t.src()); }) == "E-MAN-002");
  t.write("murmur.yaml", process_manifest("[bin/../../x/agent]"));
  CHECK(code_of([&] { mur::load_manifest_dir(t.src()); }) == "E-MAN-002");
  t.write("murmur.yaml", process_manifest("[no-such-program-on-path-either]")); // bare: PATH, at launch
  CHECK(code_of([&] { mur::load_manifest_dir(t.src()); }) == "accepted");
  t.write("murmur.yaml", process_manifest("[/bin/sh, -c, 'echo hi']"));
  CHECK(code_of([&] { mur::load_manifest_dir(t.src()); }) == "accepted");
}

TEST_CASE("resolve_harness_program: the folder first, then PATH, else E-HAR-001", "[store][harness]") {
  Tmp t;
  const std::string src = t.src();
  fs::create_directories(t.root / "path1");
  fs::create_directories(t.root / "path2");
  auto exe = [&](const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "#!/bin/sh\n";
    ::chmod(p.c_str(), 0755);
  };
  const std::string path_env = "relative/dir::" + (t.root / "path1").string() + ":" + (t.root / "path2").string();
  auto resolve = [&](const char* command) {
    t.write("murmur.yaml", process_manifest(command));
    return mur::resolve_harness_program(mur::load_manifest_dir(src), src, path_env);
  };
  auto resolve_code = [&](const char* command) {
    return code_of([&] { resolve(command); });
  };
  exe(t.root / "src/bin/agent");
  CHECK(resolve("[./bin/agent]") == (t.root / "src/bin/agent").string());
  CHECK(resolve("[bin/agent, x]") == (t.root / "src/bin/agent").string());
  exe(t.root / "path2/tool");
  CHECK(resolve("[tool]") == (t.root / "path2/tool").string());
  exe(t.root / "path1/tool");
  CHECK(resolve("[tool]") == (t.root / "path1/tool").string()); // PATH order
  exe(t.root / "src/tool");
  CHECK(resolve("[tool]") == (t.root / "src/tool").string());   // the folder before PATH
  CHECK(resolve("[/bin/sh]") == "/bin/sh");
  CHECK(resolve_code("[nowhere-at-all]") == "E-HAR-001");
  CHECK(resolve_code("[/no/such/program]") == "E-HAR-001");
  // A relative PATH entry is never searched (it would be the member's working directory).
  exe(t.root / "src/relative/dir/only-here");
  CHECK(resolve_code("[only-here]") == "E-HAR-001");
  // A bare name in the folder that is not executable is not silently taken from PATH.
  std::ofstream(t.root / "path1/plain") << "#!/bin/sh\n";
  ::chmod((t.root / "path1/plain").c_str(), 0755);
  std::ofstream(t.root / "src/plain") << "data";
  CHECK(resolve_code("[plain]") == "E-HAR-001");
  // The program was removed from the folder after the manifest was read.
  t.write("murmur.yaml", process_manifest("[./bin/agent]"));
  auto m = mur::load_manifest_dir(src);
  fs::remove(t.root / "src/bin/agent");
  CHECK(code_of([&] { mur::resolve_harness_program(m, src, path_env); }) == "E-HAR-001");
  mur::Manifest script;
  CHECK(code_of([&] { mur::resolve_harness_program(script, src, path_env); }) == "E-HAR-001");
}

TEST_CASE("the capsule digest fed in pieces is the digest of the whole files", "[store]") {
  const std::vector<std::pair<std::string, std::string>> files{{"murmur.yaml", "name: w\n"}, {"a/b.js", "x"}, {"e", ""}};
  mur::CapsuleDigest d;
  for (const auto& [path, bytes] : files) {
    d.begin_file(path, bytes.size());
    for (char c : bytes) d.update(&c, 1); // byte by byte
  }
  CHECK(d.hex() == mur::capsule_digest(files));
  // Moving a byte from one file to the next changes it (lengths are framed).
  CHECK(mur::capsule_digest({{"a", "xy"}, {"b", ""}}) != mur::capsule_digest({{"a", "x"}, {"b", "y"}}));
}

TEST_CASE("an agent program with its node_modules installs: thousands of files, a file past 16 MiB", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
  for (int dir = 0; dir < 50; ++dir)
    for (int f = 0; f < 100; ++f)
      t.write("node_modules/pkg" + std::to_string(dir) + "/f" + std::to_string(f) + ".js", "module " + std::to_string(f));
  std::string big(20u << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 % 251);
  std::ofstream(t.root / "src/node_modules/native.node", std::ios::binary) << big;
  auto out = mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false);
  CHECK(out.kind == mur::InstallOutcome::Kind::installed);
  CHECK(out.files == 5002);
  CHECK(out.bytes > big.size());
  CHECK(out.seconds > 0);
  const fs::path dir = fs::path(t.store()) / "w/1.0.0";
  CHECK(fs::file_size(dir / "node_modules/native.node") == big.size());
  std::ifstream copied(dir / "node_modules/native.node", std::ios::binary);
  std::string back((std::istreambuf_iterator<char>(copied)), std::istreambuf_iterator<char>());
  CHECK(back == big);
  auto listed = mur::list_store(t.store(), mur::StoreScope::global);
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].problem.empty());
  // The same folder again is unchanged, and one flipped byte in the store is found.
  CHECK(mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false).kind ==
        mur::InstallOutcome::Kind::unchanged);
  {
    std::fstream f(dir / "node_modules/native.node", std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(12345);
    f.put('!');
  }
  CHECK(mur::list_store(t.store(), mur::StoreScope::global).at(0).problem.find("no longer match") != std::string::npos);
  CHECK(t.leftovers().empty());
}

TEST_CASE("past 1 GiB in all a capsule is refused before anything is read, naming install.exclude", "[store]") {
  Tmp t;
  t.write("murmur.yaml", "name: w\nversion: 1.0.0\n");
  t.write("data/huge.bin", "");
  fs::resize_file(t.root / "src/data/huge.bin", (std::uintmax_t{1} << 30) + 1); // sparse: nothing written
  try {
    mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false);
    FAIL("accepted");
  } catch (const mur::Failure& f) {
    CHECK(f.code() == "E-INS-001");
    CHECK(f.message().find("more than 1 GiB") != std::string::npos);
    CHECK(f.fix().find("install.exclude") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(fs::path(t.store()) / "w"));
}

TEST_CASE("install.exclude leaves paths out of the store, and the stored copy is still checked whole", "[store]") {
  Tmp t;
  t.write({{"murmur.yaml", "name: w\nversion: 1.0.0\ninstall: {exclude: [__pycache__, 'node_modules/.cache', '*.log']}\n"},
           {"agent/__pycache__/a.pyc", "compiled"},
           {"agent/main.py", "print('hi')"},
           {"node_modules/.cache/blob", "cache"},
           {"node_modules/keep.js", "kept"},
           {"debug.log", "log"},
           {"sub/deeper/trace.log", "log"}});
  auto out = mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false);
  CHECK(out.files == 3);
  const fs::path dir = fs::path(t.store()) / "w/1.0.0";
  CHECK(fs::exists(dir / "agent/main.py"));
  CHECK(fs::exists(dir / "node_modules/keep.js"));
  CHECK_FALSE(fs::exists(dir / "agent/__pycache__"));
  CHECK_FALSE(fs::exists(dir / "node_modules/.cache"));
  CHECK_FALSE(fs::exists(dir / "debug.log"));
  CHECK_FALSE(fs::exists(dir / "sub/deeper/trace.log"));
  CHECK(mur::list_store(t.store(), mur::StoreScope::global).at(0).problem.empty());
  // A file added to the stored copy is found, even one the globs would have left out.
  std::ofstream(dir / "debug.log") << "planted";
  CHECK_FALSE(mur::list_store(t.store(), mur::StoreScope::global).at(0).problem.empty());
}

TEST_CASE("install.exclude may not leave out what the manifest names, nor reach outside the folder", "[store]") {
  for (const std::string& globs : {"['murmur.*']", "['*.yaml']", "['/etc']", "['../x']", "['']", "[prompts]"}) {
    Tmp t;
    INFO(globs);
    t.write("murmur.yaml", "name: w\nversion: 1.0.0\ninference: {transport: http, endpoint: 'http://localhost:1/v1', "
                           "model: m, system_prompt_file: prompts/sys.md}\ninstall: {exclude: " + globs + "}\n");
    t.write("prompts/sys.md", "Be brief.\n");
    CHECK(code_of([&] { mur::install_capsule(t.src(), t.store(), mur::StoreScope::global, false); }) == "E-MAN-002");
  }
}
