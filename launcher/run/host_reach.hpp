// host_reach.hpp — reaching another machine's host agent (`mur host`) from this one: what
// `mur doctor` does for each host a roster names.
//
// Invariant: a host is reached only over TLS, both sides presenting a certificate: this machine's
// launcher identity ($MURMUR_HOME/launcher/identity.crt, made on first use) and, pinned, the one
// the roster's hosts.NAME.key holds — nothing else is trusted. The answer is one of: reached (its
// report), E-HST-002 (no TCP connection within the bound: nothing listens, no route), E-HST-003
// (the TLS handshake failed: it does not trust this launcher, or presented another certificate),
// E-HST-006 (this machine's identity could not be made). Each carries a Fix. Bounded: the
// connection and the answer each within `bound`.
// Rule: admission checks every host a roster names (docs/hosts.md §What doctor checks).
#pragma once

#include "launcher/admission/admission.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/wire/host_messages.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct HostReached {
  std::optional<Failure> refusal;
  HostReport report;
};

HostReached reach_host(const RosterHost& host, const std::string& key_file, const std::vector<HostCapsule>& capsules,
                       std::chrono::milliseconds bound);

// `mur install --host`: the capsule folder `dir`, read as `mur install` reads one, sent to the
// host in pieces and installed into its global store (E-HST-002/003 as above; its own refusal,
// E-HST-009 or what its install said, passed on). Each piece answered within `bound`.
struct HostInstall {
  std::optional<Failure> refusal;
  HostInstalled installed;
};
HostInstall install_on_host(const RosterHost& host, const std::string& key_file, const std::string& dir, bool force,
                            std::chrono::milliseconds bound);

// Each host a member is placed on, in roster order, reached as above and asked whether its
// store holds each of its members' capsules as admitted here: throws the first refusal
// (E-HST-002/003/006, or E-HST-004 naming the member and why). `line` is told what mur doctor
// lists: each host reached (`reached` true) or refused, and each member's capsule found there.
void check_hosts(const Admission& a, const std::function<void(const std::string& line, bool reached)>& line);

// mur run: which host each member is placed on (members placed on none are absent).
std::map<std::string, std::string> member_hosts(const Admission& a);

// mur run's connection to its hosts: the system of the launcher actor speaks TLS as this
// machine's launcher identity, trusting exactly the certificates of the roster's hosts that
// have members (one file of them, `trust_file`, public certificates only).
void speak_tls_to_hosts(caf::actor_system_config& cfg, const Admission& a, const std::string& trust_file);

// On each host a member is placed on: its agent reached through `sys` (E-HST-002/003 as above),
// and a formation opened there for `route` (the launcher's side, actors/host_route.hpp), which
// is handed it at once (put_atom) — refused by the host: E-HST-011 with its reason. Returns, by
// host, its agent and its formation there.
struct OpenedHosts {
  std::map<std::string, caf::actor> agents;
  std::map<std::string, caf::actor> formations;
};
OpenedHosts open_hosts(caf::actor_system& sys, const Admission& a, const std::string& formation_id, const caf::actor& route,
                       std::chrono::milliseconds bound);

// Each host's traces of its members (HostTraces), written where this machine keeps a peer's
// ($MURMUR_HOME/formations/<frm>/<member>/.murmur/<ses>/trace.jsonl; a file that grew is replaced
// whole by a rename, one that did not is left), so `mur trace show`, `--follow`, `mur run -v`
// and the view page read them as any member's. Only members the roster places on that host are
// taken. Returns a line for each host that did not answer within `bound`. mur run calls it every
// second while the formation runs, and once more after every member ended.
std::vector<std::string> bring_back_traces(caf::actor_system& sys, const Admission& a, const OpenedHosts& hosts,
                                           const std::string& formation_id, std::chrono::milliseconds bound);

// A formation's doors on other hosts: an authority made for it in memory (its certificate, PEM,
// public), and for each member placed on a host, that authority's certificate for the host's
// address (the roster's `address` without its port: the address `mur host --listen` binds) with
// its key. The authority's own key is wiped and dropped before this returns: nothing can issue
// another certificate for the formation. Throws E-HST-006 when OpenSSL refuses.
struct DoorCertificates {
  std::string authority;
  std::map<std::string, DoorTls> members;
};
DoorCertificates issue_door_certificates(const Admission& a);

// This machine's launcher certificate (made on first use): what a host's --trust file lists.
std::string launcher_certificate();

} // namespace mur
