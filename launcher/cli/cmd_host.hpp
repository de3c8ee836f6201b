// cmd_host.hpp — `mur host`: this machine's host agent, which launchers on other machines reach
// over TLS (docs/hosts.md).
//
// Invariant: `mur host --certificate` prints this machine's host certificate (made on first use,
// $MURMUR_HOME/host/identity.crt) and nothing else. `mur host --listen ADDR:PORT --trust FILE
// [--name NAME]` serves the host agent (launcher/run/host_agent.hpp) over CAF's middleman with
// TLS at ADDR:PORT, to exactly the launchers whose certificates FILE holds: any other is refused
// in the handshake, before a message reaches it. It prints one line once it listens
// (`mur host NAME: listening on ADDR:PORT`) and serves until SIGINT or SIGTERM (exit 0). A
// --listen that is not ADDR:PORT, a --trust without a certificate, or an address it cannot
// listen on is E-HST-007, and nothing serves.
// Rule: the host agent trusts only the launchers it is told to (docs/hosts.md §Keys).
#pragma once

#include "launcher/cli/command.hpp"

namespace CLI {
class App;
}

namespace mur {

Command declare_host(CLI::App& app);

} // namespace mur
