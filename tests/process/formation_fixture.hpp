// formation_fixture.hpp — a formation project for process tests: an isolated MURMUR_HOME with
// the example's capsules installed globally, and a copy of its roster.yaml in a temporary
// project directory (the entry member writes its sessions there, never into the source tree).
//
// Invariant: each fixture has its own home and project; nothing a test launches can see another
// test's records, formations or sessions.
#pragma once

#include "launched_mur.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace mur::test {

struct FormationFixture {
  explicit FormationFixture(const std::string& example = "review");
  TempDir home, project;
  std::map<std::string, std::string> env;
  std::string example_dir;

  void install(const std::string& capsule_dir); // mur install -g
  // Every trace.jsonl of a member of `formation_id`: the entry's under the project, each peer's
  // under formations/<id>/<member>/. Keyed by member name.
  std::map<std::string, std::vector<nlohmann::json>> traces(const std::string& formation_id) const;
  // Whether any file under home or the project's .murmur contains `needle`.
  std::vector<std::string> files_containing(const std::string& needle) const;
};


// What a serve-mode `run --roster --json` prints first: the formation line (with its peers) and
// the entry's readiness line; `pids` holds the peers' then the entry's.
struct Serving {
  nlohmann::json formation, entry;
  std::vector<int> pids;
  std::string id() const { return formation["formation_id"]; }
};
// Reads those two lines (bounded) and REQUIREs both to be JSON objects.
Serving serve(LaunchedMur& run);

#ifdef MUR_BINARY
// The example formation served (`mur run --roster --json`, no task) until the test ends: its
// fixture, the launcher, what it printed when the entry was ready, and the formation's id.
struct ServedFormation {
  FormationFixture f;
  LaunchedMur run{{MUR_BINARY, "run", "--roster", f.project.path, "--json"}, f.env};
  Serving s = serve(run);
  std::string frm = s.id();
};
#endif

// The `formation frm_…` id a human-mode launch printed on stderr ("" if none).
std::string formation_id_in(const std::string& err);

// CHECKs that `text` holds each of `needles` (a failure names the one missing).
void check_holds(const std::string& text, const std::vector<std::string>& needles);

// How long a process test waits for what must happen (a bound, never a speed asserted).
inline constexpr std::chrono::seconds generous{30};

// The processes whose environment holds `entry` ("NAME=value") — a program mur started, marked
// by a variable of its own — waited for (a process appearing is no event to wait on) until at
// least one is there or `bound` ran out.
std::vector<pid_t> processes_with_env(const std::string& entry, std::chrono::milliseconds bound = generous);

// Token prefixes: neither may appear anywhere outside the 0600 running records.
inline const std::vector<std::string> token_prefixes{"mft1.", "mdt1."};

} // namespace mur::test
