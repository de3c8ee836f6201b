// How a member's limits are named when they explain an end (member/member_limits.hpp), and
// which environment variables a capsule reads (launcher/admission/env_needs.hpp): pure functions
// the process tests reach only on machines with control groups.
#include "capsule/manifest.hpp"
#include "launcher/admission/env_needs.hpp"
#include "member/member_limits.hpp"

#include <catch2/catch.hpp>

TEST_CASE("a limit is named only when the group's counters and the way the process ended both say so", "[limits]") {
  mur::ResourceBounds bounds;
  bounds.memory_mib = 192;
  bounds.pids = 64;
  mur::LimitCounts oom;
  oom.oom_kills = 1;
  mur::LimitCounts forks;
  forks.pids_refused = 12;

  const auto killed = mur::limit_reached("the agent program", oom, bounds, 9, 0);
  CHECK(killed.code_and_what ==
        "E-LIM-001: the kernel ended the agent program: its member reached capabilities.limits.memory_mib "
        "(192 MiB, the member and its programs together)");
  CHECK(killed.fix.find("raise capabilities.limits.memory_mib") != std::string::npos);
  CHECK(mur::limit_reached("the agent program", {}, bounds, 9, 0).code_and_what.empty()); // killed, no OOM counted
  CHECK(mur::limit_reached("the agent program", oom, bounds, 15, 0).code_and_what.empty()); // not the OOM killer's signal
  CHECK(mur::limit_reached("the agent program", oom, {}, 9, 0).code_and_what.empty());      // no memory limit set

  const auto failed = mur::limit_reached("the tool server 'files'", forks, bounds, 0, 3);
  CHECK(failed.code_and_what ==
        "E-LIM-002: the tool server 'files' exited with status 3 after 12 of its processes or threads could not "
        "start: its member reached capabilities.limits.pids (64)");
  CHECK(mur::limit_reached("the agent program", forks, bounds, 0, 0).code_and_what.empty()); // it succeeded
  CHECK(mur::limit_reached("x", forks, bounds, 6, 0).code_and_what.find("was ended by signal 6") != std::string::npos);

  mur::LimitCounts before;
  before.oom_kills = 2;
  mur::LimitCounts after = before;
  after.oom_kills = 3;
  CHECK(mur::counted_since(before, after).oom_kills == 1);
  CHECK(mur::counted_since(before, before).oom_kills == 0);
}

TEST_CASE("the variables a capsule reads are exactly its ${NAME}s: key, env, tool env and headers", "[isolation]") {
  const mur::Manifest m = mur::parse_manifest(
    "name: reader\nversion: 1.0.0\n"
    "inference: {transport: http, endpoint: 'https://api.example.com/v1', model: m, api_key: '${MODEL_KEY}'}\n"
    "tools:\n"
    "  - {name: search, url: 'https://search.example.com/mcp', headers: {Authorization: 'Bearer ${SEARCH_KEY}'}}\n"
    "  - {name: files, command: [files-server], env: {ROOT: '${FILES_ROOT}'}}\n",
    "murmur.yaml");
  CHECK(mur::env_read_by(m) == std::set<std::string>{"MODEL_KEY", "SEARCH_KEY", "FILES_ROOT"});
  const mur::Manifest plain = mur::parse_manifest("name: plain\nversion: 1.0.0\n", "murmur.yaml");
  CHECK(mur::env_read_by(plain).empty());
}
