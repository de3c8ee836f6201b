// The edit-run loop at admission: a member named by `path` is installed into the project store
// when its folder changed (and only then), bound to what was installed; `path` beside
// capsule and version or host is E-ROS-012; W-ROS-007 names a source folder of the project whose
// bytes differ from the installed copy a member runs; a version that is not installed lists
// those that are; an unknown key names the nearest known one.
#include "launcher/admission/admission.hpp"
#include "launcher/admission/source_drift.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/nearest_word.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

// A project directory with capsules/<dir>/murmur.yaml folders, and its two stores.
struct Project {
  fs::path root = fs::temp_directory_path() / ("mur-loop-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
  fs::path project = root / "project";
  mur::StoreRoots roots{(project / ".murmur/artifacts").string(), (root / "home/artifacts").string()};

  static int& counter() {
    static int n = 0;
    return n;
  }
  Project() { fs::create_directories(project / "capsules"); }
  ~Project() { fs::remove_all(root); }

  void folder(const std::string& dir, const std::string& name, const std::string& reply,
              const std::string& version = "1.0.0") {
    fs::create_directories(project / "capsules" / dir);
    std::ofstream(project / "capsules" / dir / "murmur.yaml")
      << "name: " << name << "\nversion: " << version << "\ninference: {turns: [{reply: \"" << reply << "\"}]}\n";
  }
  mur::Roster roster(const std::string& members) const {
    auto r = mur::parse_roster("roster_version: 1\nmembers:\n" + members, "roster.yaml");
    r.file = "roster.yaml";
    r.project_dir = project.string();
    return r;
  }
  mur::Admission admit(const std::string& members) const { return mur::admit(roster(members), roots); }
  mur::Failure refusal(const std::string& text) const {
    try {
      mur::parse_roster(text, "roster.yaml");
    } catch (const mur::Failure& f) {
      return f;
    }
    FAIL("parsed:\n" << text);
    throw;
  }
};

const std::string by_path = "  - {name: worker, path: capsules/worker, entry: true}\n";

} // namespace

TEST_CASE("a member named by path is installed into the project store when its folder changed, and bound to those bytes",
          "[admission][loop]") {
  Project p;
  p.folder("worker", "acme-worker", "one");
  auto first = p.admit(by_path);
  REQUIRE(first.installed.size() == 1);
  CHECK(first.installed[0].outcome.kind == mur::InstallOutcome::Kind::installed);
  CHECK(mur::install_line(first.installed[0]) == "installed acme-worker@1.0.0 from capsules/worker for member worker (new)");
  const auto& m = first.members[0];
  CHECK(m.declared.capsule == "acme-worker");
  CHECK(m.declared.version == "1.0.0");
  CHECK(m.capsule.stored.scope == mur::StoreScope::project);
  CHECK(m.capsule.stored.dir == p.roots.project + "/acme-worker/1.0.0");
  CHECK(m.capsule.stored.sha256 == first.installed[0].outcome.capsule.sha256);
  CHECK(m.capsule.manifest.inference.turns[0].reply == "one");

  auto again = p.admit(by_path); // nothing changed: nothing written, nothing said
  REQUIRE(again.installed.size() == 1);
  CHECK(again.installed[0].outcome.kind == mur::InstallOutcome::Kind::unchanged);
  CHECK(mur::install_line(again.installed[0]).empty());
  CHECK(again.members[0].capsule.stored.sha256 == m.capsule.stored.sha256);

  p.folder("worker", "acme-worker", "two"); // an edit, same version: replaced, no --force needed
  auto edited = p.admit(by_path);
  CHECK(edited.installed[0].outcome.kind == mur::InstallOutcome::Kind::replaced);
  CHECK(mur::install_line(edited.installed[0]) == "installed acme-worker@1.0.0 from capsules/worker for member worker (changed)");
  CHECK(edited.members[0].capsule.manifest.inference.turns[0].reply == "two");
  CHECK(edited.members[0].capsule.stored.sha256 != m.capsule.stored.sha256);
  CHECK(edited.members[0].capsule.stored.sha256 == mur::capsule_folder_digest((p.project / "capsules/worker").string()));
}

TEST_CASE("a path member's folder that cannot be installed is refused with install's code, naming the member",
          "[admission][loop]") {
  Project p;
  try {
    p.admit("  - {name: worker, path: capsules/nowhere, entry: true}\n");
    FAIL("admitted");
  } catch (const mur::Failure& f) {
    CHECK(f.code().rfind("E-", 0) == 0);
    CHECK(f.message().rfind("roster.yaml: member 'worker' (path capsules/nowhere): ", 0) == 0);
  }
  CHECK_FALSE(fs::exists(p.roots.project));
}

TEST_CASE("E-ROS-012: path beside capsule, version or host", "[roster][loop]") {
  Project p;
  const std::string head = "roster_version: 1\nmembers:\n";
  auto both = p.refusal(head + "  - {name: w, path: capsules/w, capsule: acme-w, version: 1.0.0, entry: true}\n");
  CHECK(both.code() == "E-ROS-012");
  CHECK(both.message().find("members[0].path (member 'w')") != std::string::npos);
  CHECK(both.fix().find("not both") != std::string::npos);
  CHECK(p.refusal(head + "  - {name: w, path: capsules/w, version: 1.0.0, entry: true}\n").code() == "E-ROS-012");
  auto hosted = p.refusal(head + "  - {name: w, path: capsules/w, host: box}\n");
  CHECK(hosted.code() == "E-ROS-012");
  CHECK(hosted.fix() == "install the folder there (mur install --host box capsules/w) and name it with capsule: and "
                        "version: instead of path:");
  // Neither: capsule is required as before.
  CHECK(p.refusal(head + "  - {name: w, entry: true}\n").message().find("members[0].capsule (member 'w'): is required") != std::string::npos);
}

TEST_CASE("W-ROS-007: an installed copy that differs from the project's source folder of the same capsule and version",
          "[admission][loop]") {
  Project p;
  p.folder("worker", "acme-worker", "one");
  mur::install_capsule((p.project / "capsules/worker").string(), p.roots.project, mur::StoreScope::project, false);
  const std::string pinned = "  - {name: worker, capsule: acme-worker, version: 1.0.0, entry: true}\n";
  CHECK(p.admit(pinned).warnings.empty()); // the same bytes: nothing to say
  p.folder("worker", "acme-worker", "edited");
  p.folder("other", "acme-other", "x"); // another capsule's folder, and one that does not parse: not looked at
  fs::create_directories(p.project / "capsules/broken");
  std::ofstream(p.project / "capsules/broken/murmur.yaml") << "name: [\n";
  auto a = p.admit(pinned);
  REQUIRE(a.warnings.size() == 1);
  const auto& w = a.warnings[0];
  CHECK(w.code == "W-ROS-007");
  CHECK(w.message.find("member 'worker' (acme-worker@1.0.0) runs the copy in the project store") == 0);
  CHECK(w.message.find("but capsules/worker holds the same capsule and version with other bytes") != std::string::npos);
  CHECK(w.fix == "reinstall it from the project directory: mur install capsules/worker --force; or name it by its folder "
                 "in roster.yaml ({name: worker, path: capsules/worker}), which mur run and mur doctor install whenever it "
                 "changed");
  // Named by path instead, the folder is what runs: no warning.
  CHECK(p.admit(by_path).warnings.empty());
}

TEST_CASE("a version that is not installed lists the installed versions of that capsule", "[admission][loop]") {
  Project p;
  for (const char* v : {"1.2.0", "1.10.0"}) {
    p.folder("w" + std::string(v), "acme-worker", "x", v);
    mur::install_capsule((p.project / "capsules" / ("w" + std::string(v))).string(), p.roots.global,
                         mur::StoreScope::global, false);
  }
  p.folder("w0", "acme-worker", "x", "0.9.0");
  mur::install_capsule((p.project / "capsules/w0").string(), p.roots.project, mur::StoreScope::project, false);
  try {
    p.admit("  - {name: worker, capsule: acme-worker, version: 2.0.0, entry: true}\n");
    FAIL("admitted");
  } catch (const mur::Failure& f) {
    CHECK(f.code() == "E-ROS-007");
    CHECK(f.message().find("the installed versions of acme-worker are 0.9.0 (project), 1.2.0 (global), 1.10.0 (global)") !=
          std::string::npos);
    CHECK(f.fix().rfind("use an installed version (acme-worker@1.10.0), or install acme-worker@2.0.0: mur install", 0) == 0);
  }
  try {
    p.admit("  - {name: worker, capsule: acme-nothing, version: 1.0.0, entry: true}\n");
    FAIL("admitted");
  } catch (const mur::Failure& f) {
    CHECK(f.message().find("no version of acme-nothing is installed") != std::string::npos);
  }
}

TEST_CASE("an unknown key of roster.yaml or murmur.yaml names the nearest known key", "[roster][manifest][loop]") {
  Project p;
  auto typo = p.refusal("roster_version: 1\nmembers:\n  - {name: w, capsule: acme-w, version: 1.0.0, entyr: true}\n");
  CHECK(typo.code() == "E-ROS-001");
  CHECK(typo.message() == "roster.yaml: members[0].entyr: is not a known key (did you mean `entry`?)");
  CHECK(typo.fix().rfind("write `entry` instead of `entyr`, or remove it; known keys here: name, capsule,", 0) == 0);
  auto far = p.refusal("roster_version: 1\nmembers:\n  - {name: w, capsule: acme-w, version: 1.0.0, colour: red}\n");
  CHECK(far.message() == "roster.yaml: members[0].colour: is not a known key");
  CHECK(far.fix().rfind("remove it or correct its spelling; known keys here:", 0) == 0);
  try {
    mur::parse_manifest("name: a\nversion: 1.0.0\nlifecycle: {after_tsak: sleep}\n", "murmur.yaml");
    FAIL("parsed");
  } catch (const mur::Failure& f) {
    CHECK(f.code() == "E-MAN-002");
    CHECK(f.message() == "murmur.yaml: lifecycle.after_tsak: is not a known key (did you mean `after_task`?)");
  }
  CHECK(mur::nearest_word("reachabilty", {"members", "reachability", "limits"}) == "reachability");
}
