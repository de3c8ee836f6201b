// door_server.hpp — a member's door over HTTP: RESTinio on 127.0.0.1 (or a host's own address), an OS-chosen port.
//
// Invariant: the server only translates. Every request goes through door_intake (one pure
// function, also driven by the fuzzer): HTTP framing first, then the Authorization lines turned
// into a verdict by the door's own verifiers (no token goes further) and judged by the door's
// own rule (`judge_caller`) before a byte of the body is parsed, then JSON-RPC (bounded in
// depth), version and params. Only a door method with good params reaches the door actor, as a
// DoorRequest; the HTTP answer is completed when the door answers, and a DoorRefusal becomes
// 401/403 here (http_refusal). docs/spec/door.md §Request processing order holds. Every call answered
// once is asked of the door by one long-lived gateway actor and answered from its reply
// handler (no actor per request). Streams (SendStreamingMessage, SubscribeToTask) are one actor per
// request, the door's subscriber: first the Task, then every change, closed at a terminal
// state, with heartbeat comments more often than the idle timeout; each subscriber writes
// through a bounded queue (http/subscriber_queue.hpp) and is dropped, told why, when it falls
// behind. At most `max_connections` connections are open at once (one more is closed at once;
// accepting resumes as they end). A Content-Length more than 64 KiB over 1 MiB is answered 413
// from the headers (after every earlier answer on the connection, then the connection ends; no
// byte of the body is read); a body over 1 MiB otherwise is refused 413 before it is parsed;
// connections that never finish a request within the idle timeout are closed. What RESTinio 0.6 does not let the
// door answer (parser errors close the connection) is listed at the top of door_server.cpp.
// Spec: docs/spec/door.md (routes, order, credentials); docs/spec/a2a.md §JSON-RPC binding,
// §Streaming.
#pragma once

#include "actors/actor_interfaces.hpp"
#include "http/connection_ceiling.hpp"
#include "http/subscriber_queue.hpp"
#include "messages/wire/agent_card.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace mur {

class DoorTokenIssuer;
class FormationVerifier;

struct DoorServerSetup {
  caf::actor_system* system = nullptr;
  door_handle door;
  std::shared_ptr<const DoorTokenIssuer> door_tokens;   // this session's issuer
  std::shared_ptr<const FormationVerifier> formation;   // null outside a formation
  a2a::CardFacts card;                                  // url is filled in once bound
  std::uint16_t port = 0;                               // 0: an OS-chosen port; else pinned (mur run --port)
  std::string address = "127.0.0.1";                    // an IPv4 literal: loopback, or a host's own address (docs/hosts.md)
  std::string public_url;                               // "": http://address:port; else what its card, url() and
                                                        // its readiness name (a TLS front's https URL, http/tls_front.hpp)
  std::chrono::milliseconds heartbeat{2000};
  std::chrono::milliseconds idle_timeout{15000};        // a connection that sends no whole request in this time
  std::size_t max_connections = default_door_connections; // open at once; one more is closed at once
  SubscriberLimits stream_limits;                       // per SSE subscriber (window, what may wait)
};

class DoorServer {
public:
  // Binds address:port (127.0.0.1:0 by default) and serves; returns once listening. Throws mur::Failure (E-RUN-047).
  explicit DoorServer(DoorServerSetup setup);
  ~DoorServer();
  DoorServer(const DoorServer&) = delete;
  DoorServer& operator=(const DoorServer&) = delete;

  std::uint16_t port() const;
  std::string url() const; // http://ADDRESS:PORT

  // Ends every open stream, then stops serving and joins the server threads. Idempotent.
  void stop();

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mur
