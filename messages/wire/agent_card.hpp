// agent_card.hpp — a door's A2A v1.0 Agent Card.
//
// Invariant: the card names exactly one interface (JSONRPC, protocolVersion 1.0, the door's
// own loopback URL); `capabilities.pushNotifications` is false; `methods` lists, in the fixed
// order, exactly the methods the door answers with something other than -32601; the door
// extension carries `sessionId`, so a probe can tell which session answers. An authenticated
// door declares the bearer scheme; a public one declares none. A card never holds a token.
// Spec: docs/spec/door.md §The agent card; docs/spec/a2a.md §Agent card.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mur::a2a {

inline constexpr const char* door_extension_uri = "https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1";
inline constexpr const char* capsule_extension_uri =
    "https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1";

// The call extension: a formation call's message carries `metadata.murmur.chain`, the members
// above the task it starts (messages/vocabulary/call_chain.hpp); declared on authenticated doors.
inline constexpr const char* call_extension_uri = "https://docs.murmur.nexus/reference/agent-card/#murmur-call-v1";

struct CardFacts {
  std::string capsule_name;
  std::string capsule_version;
  std::string description;       // the manifest's; "" ⇒ `Murmur capsule <name> <version>`
  std::string session_id;
  std::string url;               // http://127.0.0.1:PORT
  bool authenticated = false;
  bool accepts_peer_tasks = false;
  bool takes_tasks = true;       // task_acceptance is not `none`
};

// The door methods, in the card's fixed order.
std::vector<std::string> card_methods(const CardFacts& f);

// `extended`: the card GetExtendedAgentCard answers (adds the capsule extension).
nlohmann::json agent_card(const CardFacts& f, bool extended = false);

// The door extension's sessionId of a card; "" when it has none.
std::string card_session_id(const nlohmann::json& card);

} // namespace mur::a2a
