// One whole formation scenario, run twice: with the seeded clock and id source (IdClockSpec,
// simulated) every member's trace — event ids, session ids, task and call ids, timestamps — is
// byte-identical between the runs (docs/spec/choices.md §Determinism).
#include "formation_fixture.hpp"

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

const char* const members[] = {"lead", "a", "b", "coder"};

// The busy scenario (two callers, one single-slot callee re-offered with jitter): every member's
// trace lines once the formation ended.
std::map<std::string, std::vector<std::string>> run_busy_formation() {
  formation_fixture f;
  launch_shared_coder(f);
  f.run_for(10s);
  REQUIRE(f.exit_code() == 0);
  std::map<std::string, std::vector<std::string>> traces;
  for (const char* m : members)
    traces[m] = f.ask<std::vector<std::string>>(f.spawner, trace_atom_v, std::string(m));
  return traces;
}

} // namespace

TEST_CASE("a formation run twice with the same seed leaves byte-identical traces", "[sim][formation][determinism]") {
  const auto first = run_busy_formation();
  const auto second = run_busy_formation();
  for (const char* m : members) {
    INFO("member " << m);
    const auto& a = first.at(m);
    const auto& b = second.at(m);
    REQUIRE(a.size() > 2); // session_start … session_end, and work between
    CHECK(a.front().find("\"event_id\":\"evt_") != std::string::npos);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
  }
  // The coder was offered work busy and then ran two tasks: the runs compared are not trivial.
  std::size_t coder_task_ends = 0;
  for (const auto& line : first.at("coder"))
    if (line.find("\"event_type\":\"task_end\"") != std::string::npos) ++coder_task_ends;
  CHECK(coder_task_ends == 2);
}
