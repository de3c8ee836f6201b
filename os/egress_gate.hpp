// egress_gate.hpp — the only way out of a sealed program's network namespace: an HTTP proxy
// (CONNECT for TLS, absolute-form requests for plain HTTP) at 127.0.0.1:3128 inside it, and the
// member's own loopback ports (its MCP endpoint for the agent program) forwarded as they are.
//
// Invariant: the listeners are made inside the program's namespace (which has only a loopback
// device) and handed to mur-confine's outer process, which stays in the machine's network; each
// connection accepted there is served by a child of that process, with blocking I/O, and ends
// with it. A proxy request is judged before anything is resolved or connected: a host the
// capsule's `capabilities.network.allow` does not grant (messages/credentials/egress_grant.hpp),
// a `*.formation.invalid` name among them, gets `403` with a JSON body
// `{"error":{"code":"E-NET-001","message":…,"host":…,"port":…}}` and a W-NET-002 line on the
// program's stderr; a granted one is resolved and connected by the proxy (502 with a JSON body
// when it cannot be), and then bytes pass both ways untouched until either side closes. A
// forwarded port is reached at 127.0.0.1 of the machine, for the program directly or through
// the proxy. A request head over 16 KiB, or one not finished within 30 s, is refused (400/408).
// Rule: programs reach the network only through the member's proxy, as network.allow grants
// (docs/isolation.md §Network).
#pragma once

#include <string>
#include <vector>

namespace mur {

inline constexpr int egress_proxy_port = 3128;

struct GateListeners {
  int proxy = -1;
  std::vector<int> forward_fds; // one for each of the forwarded ports, in their order
};

// A proxy request's head (up to and including its blank line's first CRLF: every line ends with
// CRLF), read: what it asks for, and the head to send on (plain HTTP: origin-form, without
// Proxy-* and Connection headers, with `Connection: close`; CONNECT: nothing). `problem` is set,
// and nothing else is, when the head cannot be served.
struct ProxyRequest {
  std::string problem;
  bool tls = false; // CONNECT
  std::string host;
  int port = 0;
  std::string head_out;
};
ProxyRequest read_proxy_request(const std::string& head);

// Inside the new network namespace: loopback up, the proxy's and each forwarded port's listener.
// False, with `why`, when any of it fails.
bool open_gate(const std::vector<int>& forward_ports, GateListeners& out, std::string& why);

// Descriptors across a Unix socket (SCM_RIGHTS); receive_fds gives exactly `n` or none.
bool send_fds(int sock, const std::vector<int>& fds);
std::vector<int> receive_fds(int sock, std::size_t n);
// Those of one message, however many it carries up to `most` (one with more gives none); {} on end of file.
std::vector<int> receive_fds_up_to(int sock, std::size_t most);

// In a child of the outer process, for one accepted connection: `forward_port` 0 serves it as
// the proxy, any other relays it to 127.0.0.1:forward_port. Ends the process.
// A refusal is also written to `notices` (when >= 0) as one JSON line
// {"program","host","port","tls","why"}, for the member's trace.
[[noreturn]] void serve_connection(int client, int forward_port, const std::vector<std::string>& allow,
                                   const std::vector<int>& forward_ports, int notices = -1,
                                   const std::string& label = "");

} // namespace mur
