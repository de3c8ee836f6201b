// door_network.hpp — the real door-call port: the egress's (and the readiness probe's) calls to
// other doors, over HTTP through the process's CurlPool.
//
// Invariant: answers (DoorCallTo, Bearer, DoorRequest) with exactly one DoorReply, or with a
// transport error (messages/wire/transport_failure.hpp) when the door could not be reached or
// answered nothing readable as HTTP: it carries why (connection refused, timed out, reset, …)
// so the egress names it. The bearer token is read (expose()) only into the Authorization
// header of that one call, sent with `x-murmur-task-origin: peer` and `A2A-Version: 1.0`.
// SubscribeToTask keeps the event stream open: its first event (the current Task) is the reply,
// each later change is sent to the requester as a TaskEvent, the last one terminal. The public
// card probe (DoorRequest{method = DoorMethod::agent_card}) GETs the card and answers its door
// extension's sessionId in DoorReply.session_id.
// Spec: docs/spec/door.md §Calling another member's door (headers, re-offers, following);
// docs/spec/choices.md §Protocol choices (answer delivery).
#pragma once

#include "actors/ports.hpp"

#include <caf/fwd.hpp>

#include <memory>

namespace mur {

class CurlPool;

// `authority`: a formation's door authority (PEM): an https:// door is called trusting it alone;
// without one, an https:// door is not called at all.
network_port spawn_door_network(caf::actor_system& sys, std::shared_ptr<CurlPool> pool, std::string authority = "");

} // namespace mur
