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

#include <chrono>
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

// E-HST-005: members the roster places on other hosts (each "NAME on HOST") cannot be started
// yet — what mur run says, and mur doctor after it reached their hosts.
Failure members_on_hosts_not_built(const std::vector<std::string>& remote);
// The members an admission places on another host, each "NAME on HOST", in roster order.
std::vector<std::string> members_on_hosts(const Admission& a);

// This machine's launcher certificate (made on first use): what a host's --trust file lists.
std::string launcher_certificate();

} // namespace mur
