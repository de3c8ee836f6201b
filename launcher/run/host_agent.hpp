// host_agent.hpp — the actor a host agent (`mur host`) serves to the launchers it trusts, over
// CAF's middleman with TLS (caf::openssl): what the launcher asks another machine.
//
// Invariant: it answers a HostCheck for each capsule, in the order asked, from this machine's
// global store alone: installed (that name, that exact version, intact, and the sha256 asked
// when one is given) or why not, with a Fix's words — a name or version that is not one is
// refused before any path is looked at; it takes HostUpload pieces into that store
// as launcher/run/host_uploads.hpp says; a HostOpen (a formation id not open here, members whose
// capsules its store holds as asked, a door address that is not a wildcard) gets a host
// formation of its own, answered as a caf::actor — the launcher talks to that from then on; its
// members' processes are watched per formation and joined once it ended (a host that serves for
// months keeps no thread of a formation gone), and killed and joined when the agent ends. It
// holds no key: who may ask is decided before any message reaches it, by the TLS handshake
// against --trust; the bundles pass through the host formations straight to the members.
// Rule: admission checks every host a roster names (docs/hosts.md §What doctor checks).
#pragma once

#include "messages/wire/host_messages.hpp"

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mur {

using host_door = caf::typed_actor<caf::replies_to<HostCheck>::with<HostReport>,
                                   caf::replies_to<HostUpload>::with<HostInstalled>,
                                   caf::replies_to<HostOpen>::with<caf::actor>,
                                   caf::replies_to<HostTraces>::with<std::vector<HostTrace>>>;

class MemberConsole;
class MemberProcesses;

// What a host needs to start members (HostOpen): each formation's members run as the
// launcher's own process spawner runs them (launcher/run/process_spawner.hpp), their doors on
// `door_address`, watched by a host formation (actors/host_formation.hpp).
struct HostRunSetup {
  std::string door_address;            // the address it listens on: where its members' doors bind
  std::string program;                 // the mur binary
  std::string workdir;                 // the members' project directory here ($MURMUR_HOME/host/project)
  std::vector<std::string> env;        // the members' base environment: the host's own
  std::shared_ptr<MemberConsole> console;
  std::chrono::milliseconds beat{1000};
  int lost_after = 2;                  // checks without a beat: ended 2–3 s after the last beat
  std::chrono::milliseconds kill_grace{1500};
};

struct HostAgentSetup {
  std::string name;        // --name, or the machine's host name
  std::string mur_version;
  std::string store;       // this machine's global store ($MURMUR_HOME/artifacts)
  std::string uploads;     // where capsule folders arrive ($MURMUR_HOME/host/uploads)
  HostRunSetup run;
};

host_door spawn_host_agent(caf::actor_system& sys, HostAgentSetup setup);

// A system that speaks to other machines: mur's message types, CAF's middleman over TLS as
// the identity `certificate` and `key`, trusting exactly the certificates in the file `trusted`;
// one scheduler thread.
void speak_tls(caf::actor_system_config& cfg, const std::string& certificate, const std::string& key,
               const std::string& trusted);

// The traces a formation's members left on this machine ($MURMUR_HOME/formations/<frm>/<member>/
// .murmur/<ses>/trace.jsonl), member and session ids checked, no link followed (a directory or
// file that is a symbolic link is left out), host_traces_limit bytes in all at most (a trace past
// it is left out whole). The agent gives them only for formations it opened.
std::vector<HostTrace> formation_traces_here(const std::string& formation_id);

// One capsule as this machine's store holds it (the agent's answer for it).
HostCapsuleState check_installed(const std::string& store, const HostCapsule& asked);

} // namespace mur
