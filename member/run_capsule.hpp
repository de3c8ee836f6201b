// run_capsule.hpp — `mur run --capsule NAME --capsule-version V` / `mur run --manifest DIR`: one
// capsule session in this process, as the launcher starts members and as a person can by hand.
//
// Invariant (docs/spec/capsule.md §Session launch order): [the caller resolved the capsule] → joining:
// formation env, channel first line, lifeline → serving: session dir → member actors (wired by
// member_setup) → door serving → running record → readiness line → (--task) → waiting, until the
// member ends: each task's end arrives from the member actor (its result is written), SIGINT/
// SIGTERM/SIGHUP wind it down, lifeline EOF ends the formation → server stopped, record removed,
// trace complete → exit code from the member.
// The operator token is written only into the running record (0600), never printed.
// A delegated child (--spawn-grant-stdin, docs/delegation.md) first reads its grant from stdin
// (E-RUN-052), joins as a child (the formation's id only, its spawner lifeline), and serves a
// door that always requires a token and trusts the granted key; its trace and running record
// name `spawned_by`. A capsule whose spawn.allow is not empty gets the real child port
// (member/child_spawner.hpp); its children are ended with the session.
// Spec: docs/spec/choices.md §Command line (`mur run --capsule`), §Files; docs/spec/capsule.md;
// docs/spec/door.md §The formation channel, §The lifeline.
#pragma once

#include <optional>
#include <string>

namespace mur {

struct Manifest;

struct RunCapsuleOptions {
  std::string capsule;          // installed name (with capsule_version)
  std::string capsule_version;
  std::string capsule_sha256;   // hidden: the roster's pinned digest
  std::string manifest_dir;     // or an uninstalled folder
  std::string store_root;       // hidden: resolve stores from this project dir (default cwd)
  std::string workdir;          // default: the current directory
  std::string task;             // the task's text (the command line read any @FILE)
  bool json = false;
  std::optional<std::string> task_acceptance; // hidden: none | single | queue
  std::optional<std::string> after_task;      // hidden: exit | sleep
  bool formation_entry = false;               // hidden: the launcher starts this member as the entry
  int port = 0;                               // --port: the door's pinned port (0: OS-chosen)
  std::string door_address = "127.0.0.1";     // hidden: where the door binds (a host's own address, docs/hosts.md)
  bool spawn_grant_stdin = false;             // hidden: a delegated child; its grant is on stdin
};

// Runs the session of the resolved capsule `manifest` to its end; returns the process exit
// code. Throws mur::Failure on a refusal before the door serves.
int run_capsule(const Manifest& manifest, const RunCapsuleOptions& options);

} // namespace mur
