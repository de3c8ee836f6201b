// temp_dir.hpp — fresh directories under /tmp for the unit tests, and a $MURMUR_HOME in one of
// them for the tests of what mur keeps there.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace mur::test {

// A fresh directory /tmp/mur-<name>-XXXXXX (by its real path), removed when the object goes away.
struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& name) {
    std::string tmpl = "/tmp/mur-" + name + "-XXXXXX";
    dir = std::filesystem::canonical(::mkdtemp(tmpl.data()));
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// A TempDir holding home/, which is $MURMUR_HOME while the object lives, and project/.
struct TempHome : TempDir {
  std::optional<std::string> before; // $MURMUR_HOME as it was, put back at the end
  explicit TempHome(const std::string& name) : TempDir(name) {
    if (const char* v = std::getenv("MURMUR_HOME")) before = v;
    ::setenv("MURMUR_HOME", (dir / "home").c_str(), 1);
    std::filesystem::create_directories(dir / "home");
    std::filesystem::create_directories(dir / "project");
  }
  ~TempHome() {
    if (before) ::setenv("MURMUR_HOME", before->c_str(), 1);
    else ::unsetenv("MURMUR_HOME");
  }
};

} // namespace mur::test
