// door_method.hpp — the methods a door serves, as a value: turned from the wire word once, at the
// codec (http/jsonrpc_call.cpp, the token and manifest readers), and carried typed below it.
//
// Invariant: one table holds every method's wire word (door_method.cpp); nothing below the
// codec compares a method name. `unknown` is what a word outside the table becomes; the door
// answers it -32601. `agent_card` is the public card probe (GET /.well-known/agent-card.json),
// which no credential needs and which is no scope.
// Rule: a formation token reaches exactly five of these methods
// (docs/spec/door.md §What a formation caller reaches).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mur {

enum class DoorMethod : std::uint8_t {
  unknown,
  send_message,            // SendMessage
  send_streaming_message,  // SendStreamingMessage
  get_task,                // GetTask
  list_tasks,              // ListTasks
  cancel_task,             // CancelTask
  subscribe_to_task,       // SubscribeToTask
  get_extended_agent_card, // GetExtendedAgentCard
  session_stop,            // session/stop (mur's own: the operator ends the session)
  agent_card,              // the public card probe
};

// The wire word: "SendMessage", …, "session/stop"; "agent-card" for the probe, "" for unknown.
std::string to_string(DoorMethod m);
// The method a JSON-RPC `method` word names (the eight door methods); nullopt for any other.
std::optional<DoorMethod> door_method_named(std::string_view word);

// SendMessage or SendStreamingMessage: a task is started (or a message is sent to one).
bool starts_task(DoorMethod m);
// SendStreamingMessage or SubscribeToTask: answered as an SSE stream.
bool streams(DoorMethod m);
// GetTask, CancelTask or SubscribeToTask: needs the id of a task.
bool names_task(DoorMethod m);

} // namespace mur
