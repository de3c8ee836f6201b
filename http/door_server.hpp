// door_server.hpp — a member's door over HTTP: RESTinio on 127.0.0.1, an OS-chosen port.
//
// Invariant: the server only translates. For every POST / it counts the Authorization lines
// and lets the door's own verifiers turn them into a verdict (no token goes further), reads
// `x-murmur-task-origin: peer`, and hands the door actor a DoorRequest; the HTTP answer is
// completed when the door answers. Steps the door does not see (JSON parsing, the A2A-Version
// header, params) are answered only after the door has judged the credential, so the order of
// murmur-door.md §1.3 holds. Streams (SendStreamingMessage, SubscribeToTask) are one actor per
// request, the door's subscriber: first the Task, then every change, closed at a terminal
// state, with heartbeat comments more often than the idle timeout. Bodies over 1 MiB are
// refused 413 before they are parsed; connections that never finish a request time out.
// Spec: murmur-door.md §1–§2; a2a-v1.md §2, §5; toolchain.md §4 (RESTinio recipe).
#pragma once

#include "actors/actor_interfaces.hpp"
#include "messages/agent_card.hpp"

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
  std::chrono::milliseconds heartbeat{2000};
  std::chrono::milliseconds idle_timeout{15000};        // a connection that sends no request
};

class DoorServer {
public:
  // Binds 127.0.0.1:0 and serves; returns once listening. Throws mur::Failure (E-RUN-047).
  explicit DoorServer(DoorServerSetup setup);
  ~DoorServer();
  DoorServer(const DoorServer&) = delete;
  DoorServer& operator=(const DoorServer&) = delete;

  std::uint16_t port() const;
  std::string url() const; // http://127.0.0.1:PORT

  // Ends every open stream, then stops serving and joins the server threads. Idempotent.
  void stop();

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mur
