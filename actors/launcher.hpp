// launcher.hpp — the launcher actor: one formation, from minted id to every member ended.
//
// State table:
//   admitted        --start-->                    mint frm_ id and signing key; one token per edge;
//                                                 spawn every peer at once (peers starting)
//   peers starting  --MemberStarted-->            probe its door until it answers as the reported
//                                                 session (100 ms apart, within the ready deadline)
//   peers starting  --all peers ready-->          address lines to every caller; spawn the entry
//                                                 last (entry running)
//   peers starting  --a spawn or probe fails-->   stopping, exit 1; failures of other members
//                                                 while stopping are collected too, and E-RUN-045
//                                                 (each failure, then every member started) is
//                                                 reported once all are gone
//   entry running   --entry MemberExited-->       stopping, the entry's exit code (69 after a
//                                                 peer's fault, below)
//   entry running   --peer MemberExited, status 0-> no fault: it ended as its lifecycle says
//                                                 (after_task: exit). Progress `member_ended`;
//                                                 each running member that may call it gets an
//                                                 address entry with no url, so its calls to it
//                                                 answer at once that it has ended
//   entry running   --peer MemberExited, other-->  a fault: progress `member_exited` (member,
//                                                 pid, status or signal, stderr tail) at once;
//                                                 after fault_settle (calls in flight name the
//                                                 dead member meanwhile) or when the entry ends:
//                                                 stopping, 69 (member_fault_exit_code)
//   entry running   --a member with restarts left (roster `restart:`) exits other than 0, a peer
//                    or, in serve mode, the entry-->  progress `member_exited` (naming it) at once;
//                                                 every running member that may call it gets a
//                                                 `restarting` address (their new calls wait for
//                                                 its door; a call it held is lost, and named so);
//                                                 it is spawned again with a fresh bundle (tokens
//                                                 minted anew) and probed as at launch; once its
//                                                 door answers as its new session: progress
//                                                 `restarted`, its callees' addresses to it, its
//                                                 new address to its callers. A restart that does
//                                                 not come up is a fault (below)
//   entry running   --entry MemberExited, not 0, by a signal or in serve mode--> progress
//                                                 `member_exited` naming the entry, then stopping
//                                                 with its code
//   entry running   --sigterm_atom(N)-->          stopping, 128+N
//   entry running   --deadline-->                 stopping, 124
//   stopping        (from entry running, the entry up) the entry's lifeline closes first: its
//                                                 session's end cancels its tree while every callee
//                                                 still runs; the peers' close when the entry has
//                                                 exited, or after peers_after (3 s) at the latest
//   stopping        (otherwise) every lifeline closes at once
//   stopping        --all MemberExited-->         ended (reported, then quit)
//   stopping        --grace passed-->             KillMember for every member still running or
//                                                 still being started
// Invariants: the signing key lives only in this actor's state and dies with it; a member's
// bundle carries tokens for exactly its roster edges; the entry member is never a callee and
// starts only after every peer answers; every member ends when the formation ends; a formation
// never serves degraded: a peer that exits other than as its lifecycle says (status 0) ends it
// with 69 (EX_UNAVAILABLE in sysexits.h: a member the formation needs is gone), unless its
// restart budget (messages/vocabulary/restart_budget.hpp) grants it a fresh session under the
// same name; a restarted member holds no token it held before.
// Rule: launch in order, peers before the entry; end every member with the formation
// (docs/spec/formation.md §Launch, §Readiness, §How a formation ends).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "actors/id_clock.hpp"
#include "actors/ports.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/vocabulary/restart_budget.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mur {

// The formation's exit code when a peer exited abnormally while it ran.
constexpr std::int32_t member_fault_exit_code = 69;

struct PlannedMember {
  std::string name;
  bool entry = false;
  std::vector<std::string> callees; // roster order
  std::string capsule;              // "capsule@version", how E-RUN-045 names it ("" ⇒ left out)
  RestartPolicy restart;            // roster `restart:`; max 0 ⇒ its death ends the formation
};

struct LauncherSetup {
  std::vector<PlannedMember> members;                 // roster order, exactly one entry
  std::string formation_id;                           // "" ⇒ mint one
  std::string task;                                   // --task; "" ⇒ serve mode
  std::optional<LauncherIdentity> identity;           // {pid, process_start} put in every bundle
  std::chrono::milliseconds deadline{0};              // --deadline; 0 ⇒ none
  std::chrono::milliseconds ready_deadline{180'000};  // per peer, from its spawn
  std::chrono::milliseconds probe_interval{100};
  std::chrono::milliseconds stop_grace{25'000};       // then KillMember
  std::chrono::milliseconds peers_after{3'000};       // a stop closes the entry's lifeline first; the
                                                      // peers' at its end, or after this at the latest
  std::chrono::milliseconds fault_settle{5'000};      // a peer's fault → stopping, this much later
  spawn_port spawn;
  network_port network;                               // probes doors
  progress_port reporter;
  IdClockSpec ids;                                    // mints the formation id (stream "launcher")
  ChainRule chain_rule;                               // roster.yaml's allow_cycles and max_depth, in every bundle
  SpendLimits limits;                                 // roster.yaml's spending limits, in every bundle
  std::string door_authority;                         // PEM: with members on other hosts, the authority of
                                                      // their doors' certificates, in every bundle (public)
};

// Answers (caf::get_atom) with its formation id. `(sigterm_atom, int32 signal)` stops it.
launcher_handle spawn_launcher(caf::actor_system& sys, LauncherSetup setup);

} // namespace mur
