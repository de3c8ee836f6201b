// capsule_folder.hpp — an isolated MURMUR_HOME, and a capsule folder of one murmur.yaml with a
// work directory beside it, for the process tests that run `mur run --manifest`.
#pragma once

#include "run_command.hpp"

#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace mur::test {

// A fresh MURMUR_HOME and the environment that names it (what a test runs `mur` in).
struct IsolatedHome {
  TempDir home;
  std::map<std::string, std::string> env{{"MURMUR_HOME", home.path}};
};

#ifdef MUR_BINARY
// A folder holding `manifest` as its murmur.yaml, a work directory, and a home of their own.
struct CapsuleFolder : IsolatedHome {
  TempDir folder, work;
  explicit CapsuleFolder(const std::string& manifest) { std::ofstream(folder.path + "/murmur.yaml") << manifest; }
  // `mur run --manifest FOLDER --json --workdir WORK`, then `more`.
  std::vector<std::string> run_argv(const std::vector<std::string>& more = {}) const {
    std::vector<std::string> a{MUR_BINARY, "run", "--manifest", folder.path, "--json", "--workdir", work.path};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
};
#endif

} // namespace mur::test
