// egress_grant.hpp — whether a member's programs may open a connection to host:port, as its
// capsule's `capabilities.network.allow` says (the egress proxy of os/confined_start.hpp asks).
//
// Invariant: a connection is granted only by an entry that names its host — `localhost` stands
// for every loopback host (127.0.0.0/8, ::1, localhost) — and, when the entry has them, its port
// and scheme: `host` grants any port, `host:port` that port, `http://host[:port]` plain HTTP
// (port 80 unless given), `https://host[:port]` a CONNECT tunnel (port 443 unless given). Hosts
// compare without regard to case or a trailing dot. A formation's virtual address
// (`*.formation.invalid`) is never granted, whatever the list says: only call-member reaches a
// member. Every refusal says why.
// Rule: capabilities.network.allow decides what a member's programs reach (docs/isolation.md §Network).
#pragma once

#include <string>
#include <vector>

namespace mur {

struct EgressGrant {
  bool granted = false;
  std::string why; // refused: why, to complete "refused HOST:PORT: …"
  bool virtual_address = false; // refused as a formation's virtual address (no list could grant it)
};

EgressGrant judge_egress(const std::vector<std::string>& allow, const std::string& host, int port, bool tls);

} // namespace mur
