// process_spawner.hpp — the real spawn port of the launcher actor: members as `mur run` processes.
//
// Invariant: `(SpawnMember, BundleRef)` starts the member as this very binary (`run --capsule …
// --json`, the entry with `--formation-entry [--task TEXT]` — the entry rule itself is the
// member's wiring, capsule/member_wiring.hpp — nothing secret in argv or env) with exactly its channel (fd 3) and lifeline (fd 4)
// read ends, a peer in its own process group with its fresh `formations/<frm>/<member>/`
// directory as working directory, the entry in the project directory and the launcher's group;
// the bundle goes only into the channel as its first line. Once the process exists the
// requester gets `(spawned_atom, name, pid)`. It answers `(MemberStarted, lifeline end)` once the member's first
// stdout line names this formation, a session and a url — or an error naming the reason and the
// member's stderr tail, after closing that member's lifeline and killing it. The end is an actor
// owning the lifeline's write end: it closes the fd when it exits. `SendAddresses` becomes an
// address line on the member's channel; `KillMember` SIGKILLs a peer's group (the entry's pid);
// each reaped member becomes one `MemberExited` to the launcher, with its exit code and its
// stderr tail (none for a member whose start already failed). When the port ends, every lifeline end it made is closed.
// Rule: each member is its own `mur run` process with the formation's one id; a peer works in
// its own directory (docs/spec/formation.md §Launch, §Member directories).
#pragma once

#include "actors/ports.hpp"
#include "os/process_spawn.hpp" // self_binary()

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mur {

class MemberConsole;
class MemberProcesses;

struct MemberLaunch {
  std::string name;
  bool entry = false;
  std::string capsule;
  std::string version;
  std::string sha256;
  std::vector<std::string> withheld; // variables of the base environment it is not handed (others' keys)
};

struct ProcessSpawnerSetup {
  std::string program;                 // the mur binary
  std::string project_dir;             // canonical
  std::vector<MemberLaunch> members;   // roster order
  std::vector<std::string> env;        // the members' base environment (no MURMUR_FORMATION_*)
  std::string door_address;            // "" = loopback; on a host, its own address (--door-address)
  std::chrono::milliseconds ready_deadline{180'000};
  std::shared_ptr<MemberConsole> console;
  std::shared_ptr<MemberProcesses> processes;
};

spawn_port spawn_process_spawner(caf::actor_system& sys, ProcessSpawnerSetup setup);

} // namespace mur
