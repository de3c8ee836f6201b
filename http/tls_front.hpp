// tls_front.hpp — the TLS side of a door on another host: it listens on the host's address,
// completes the TLS handshake with the door's certificate (issued by the formation's door
// authority, docs/hosts.md §Doors across hosts), and carries each connection's bytes to and from
// the door itself, which listens on 127.0.0.1 as every door does.
//
// Invariant: no byte reaches the door before a handshake completed (TLS 1.2 or later); a client
// that speaks plain HTTP, or completes no handshake within `handshake_timeout`, is closed without
// a byte of the door's. At most `max_connections` are open at once; one more is closed at once.
// A connection ends on both sides when either side ends it. The key is read from memory, never
// from a file. `stop()` stops the one io thread, joins it and closes the listener; connections
// still open then are left to end with the member's process, which ends next.
// Rule: a door reachable from another machine speaks TLS only (docs/hosts.md §Doors across hosts).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace mur {

struct TlsFrontSetup {
  std::string address;                 // the host's own address (an IP literal or a name it has)
  std::string certificate;             // PEM
  std::string key;                     // PEM, secret
  std::size_t max_connections = 256;
  std::chrono::milliseconds handshake_timeout{10000};
};

class TlsFront {
public:
  // Binds address:0 (the system chooses the port). Throws mur::Failure E-RUN-047 when it cannot,
  // or when the certificate or key does not read.
  explicit TlsFront(TlsFrontSetup setup);
  ~TlsFront();
  TlsFront(const TlsFront&) = delete;
  TlsFront& operator=(const TlsFront&) = delete;

  std::uint16_t port() const;
  // Starts accepting; each connection is carried to 127.0.0.1:`door_port`.
  void serve(std::uint16_t door_port);
  void stop();

  struct Impl;

private:
  std::shared_ptr<Impl> impl_;
};

} // namespace mur
