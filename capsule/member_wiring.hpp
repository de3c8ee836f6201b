// member_wiring.hpp — the one mapping from a capsule's manifest plus its launch options to the
// member actor's setup, entry rules included. `mur run --capsule`, the launcher's spawner (which
// only passes the facts: --formation-entry, --task) and the simulation all come through it.
//
// Invariant (the entry rule): with a launch task (--task) the formation's entry member takes that
// one task and exits after it; serving (no launch task) it stays, and holds tasks as its own
// lifecycle.task_acceptance / queue_depth say (default single: one at a time, others refused as
// busy; queue: one running and queue_depth waiting, run one after another), `none` read as
// single, since the entry is the formation's door for tasks (docs/roster.md §The entry member). Then the explicit lifecycle
// overrides (--lifecycle-task-acceptance, --lifecycle-after-task) win over the manifest and the
// rule. The member's name, outside the bundle, is "" (not in a formation).
// Depends on the manifest and actors/ only, so a simulation can use it without any adapter.
// Rule: the entry member starts after every peer; launched without --task it "takes tasks at its
// door … one after another" (docs/spec/formation.md §Launch); docs/spec/choices.md §Command line (`mur run --capsule`).
#pragma once

#include "actors/id_clock.hpp"
#include "actors/member.hpp"
#include "actors/ports.hpp"
#include "capsule/manifest.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/vocabulary/failure.hpp"

#include <memory>
#include <optional>
#include <string>

namespace mur {

struct LaunchOptions {
  std::string session_id;
  std::string formation_id;                      // "" outside a formation
  std::shared_ptr<const FormationBundle> bundle;  // null outside a formation; names the member
  bool entry = false;                            // the formation's entry member
  std::string task;                              // the launch task's text ("" ⇒ serve)
  std::optional<std::string> task_acceptance;    // override: none | single | queue
  std::optional<std::string> after_task;         // override: exit | sleep
};

// The ports a member is wired to (adapters: real in member/run_capsule.cpp, simulated in tests/sim).
struct MemberPorts {
  trace_port trace;
  network_port network;
  model_port model;
  supervisor_port supervisor;
  IdClockSpec ids;
  child_port children; // starts delegated sub-capsules (null: the capsule cannot delegate)
  tool_port tools;     // the capsule's own tools (null: it declares none)
  std::vector<OwnTool> own_tools; // what `tools` listed when it started
  live_port live;      // the formation's live ledger: one slot per live child (null: no ceiling)
};

// The acceptance policy of the manifest, the entry rule and the overrides. Throws mur::Failure
// E-RUN-010 when an override is not one of its words.
AcceptancePolicy acceptance_for(const Manifest& manifest, const LaunchOptions& options);

// The whole setup. Throws as acceptance_for does.
MemberSetup member_setup(const Manifest& manifest, const LaunchOptions& options, MemberPorts ports);

} // namespace mur
