// child_spawner.hpp — the real child port (actors/ports.hpp): a delegated sub-capsule as a
// one-task `mur run --capsule` process started by the delegating member's own process.
//
// Invariant: StartChild for an entry of the capsule's own spawn.allow starts at most one child per
// delegation id, in a fresh private directory `<parent session dir>/children/<dlg>/` (0700): a
// `mur run --capsule NAME --capsule-version V --capsule-sha256 H --store-root R --json
// --spawn-grant-stdin --lifecycle-task-acceptance single --lifecycle-after-task sleep --workdir D`
// in its own process group, whose environment is the parent's minus every MURMUR_FORMATION_* and
// MURMUR_SPAWNER*, plus MURMUR_FORMATION_ID (when the parent is in a formation) and
// MURMUR_SPAWNER_LIFELINE=3 — the read end of a pipe whose only write end this process keeps.
// Its grant (a fresh 32-byte door key, spawned_by, delegation, depth, the live ledger's
// directory) goes only on its stdin; the port
// mints the child's operator token from the same key and answers it only inside the Bearer.
// The answer comes once: ChildStarted with the child's session, door and pid once its first
// stdout line names them (and this formation), or with `failure` — a sentence with no url and no
// token — when it is not installed, cannot start, exits, or says nothing usable within 30 s (then
// its group is killed). EndChild (and the port's own end) closes that child's lifeline; a child
// not gone 25 s later is SIGKILLed, group and all (the child waits after its one task — `sleep` —
// until its parent, having read the answer, ends it so); each is reaped by its thread (ChildProcesses).
// Rule: a delegated child shares only the formation id and lives no longer than its parent,
// whose process alone holds its spawner lifeline (docs/spec/choices.md §Sub-capsules).
#pragma once

#include "actors/ports.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mur {

class ChildProcesses;

struct ChildSpawnerSetup {
  std::string program;                // the mur binary
  std::string store_root;             // the project whose stores resolve a child (as `mur run --capsule`)
  std::string session_dir;            // the parent's <workdir>/.murmur/<ses>
  std::string session_id;             // the parent's ses_ (the child's spawned_by)
  int depth = 0;                      // the parent's own delegation depth (its children's is one more)
  std::string formation_id;           // "" outside a formation
  std::string live_dir;               // the formation's live ledger, handed on in each child's grant
  live_port live;                     // its slots: each child's is given back once the child is gone
  std::vector<std::string> env;       // the parent's environment, as it is (filtered per child)
  std::vector<SpawnTarget> allowed;   // capabilities.spawn.allow
  std::shared_ptr<ChildProcesses> processes; // the threads; the session ends them (end_all)
  std::chrono::milliseconds ready_deadline{30'000};
  std::chrono::milliseconds end_grace{25'000};
};

child_port spawn_child_spawner(caf::actor_system& sys, ChildSpawnerSetup setup);

// The fd a child finds its spawner lifeline at (the first inherited descriptor).
inline constexpr int CHILD_LIFELINE_FD = 3;

// A child's environment: `parent` without any MURMUR_FORMATION_* or MURMUR_SPAWNER* entry, plus
// MURMUR_FORMATION_ID=`formation_id` (unless "") and MURMUR_SPAWNER_LIFELINE=CHILD_LIFELINE_FD.
std::vector<std::string> child_environment(const std::vector<std::string>& parent, const std::string& formation_id);

// A child's argv (argv[0] "mur"), before the resolved digest is added.
std::vector<std::string> child_argv(const std::string& capsule, const std::string& version,
                                    const std::string& store_root, const std::string& workdir);

} // namespace mur
