// ports.hpp — every port an actor is handed, declared once as a typed actor interface.
//
// Invariant: an actor talks to the world (a model, other doors, processes, the trace, the
// lifeline, its supervisor) only through these handles; the real adapters (member/, http/,
// launcher/) and the simulated ones (tests/sim/sim_world.cpp) implement the same interface, so
// a protocol mismatch fails to compile. The clock and id source is not an actor (see
// actors/id_clock.hpp for why) but is injected the same way, through each *Setup.
// CAF 0.17 note: assign a handle of a wider interface through the narrower type's constructor
// (`port = spawn_port{wider}`); typed_actor's converting operator= in 0.17.6 returns nothing.
// CAF 0.17 note: a port that answers later and also pushes to its requester (ModelText, TaskEvent)
// must read `current_sender()` before `make_response_promise()`, which takes the sender over.
// Rule: the world (processes, sockets, files, clocks) sits behind adapters
// (docs/ARCHITECTURE.md §Ports and their adapters).
#pragma once

#include "actors/atoms.hpp"
#include "messages/wire/a2a_task.hpp"
#include "messages/wire/child_spawn.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/formation_messages.hpp"
#include "messages/wire/live_slot.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/own_tools.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur {

// The model port: one turn per request. Real: capsule/script_model.cpp (the sim uses it too),
// http/http_model.cpp, member/harness_model.cpp.
using model_port = caf::typed_actor<caf::replies_to<ModelTurnRequest>::with<ModelTurn>>;

// The door-call port: one request to the door at DoorCallTo, its credential attached by the port.
// Real: http/door_network.cpp; simulated: the loopback network of tests/sim/sim_world.cpp.
// SubscribeToTask / SendStreamingMessage: the first event is the reply; every later change goes
// to the requester as a TaskEvent, or TaskStreamLost when the stream broke first.
using network_port = caf::typed_actor<caf::replies_to<DoorCallTo, Bearer, DoorRequest>::with<DoorReply>>;
// What a network port pushes to the requester of a subscription.
using stream_listener = caf::typed_actor<caf::reacts_to<TaskEvent>, caf::reacts_to<TaskStreamLost>>;

// The tool port: the capsule's own tools (its MCP tool servers). A ToolRequest names a tool
// `<server>__<tool>` and is answered with its result, a tool error when the server is gone or
// passed its timeout_secs; tools_atom answers once every server is listed or one failed.
// Real and simulated: actors/tool_hub.cpp, over one mcp_transport per server.
using tool_port = caf::typed_actor<caf::replies_to<ToolRequest>::with<ToolReply>,
                                   caf::replies_to<tools_atom>::with<ToolsListed>>;
// One tool server's transport: McpOpen starts the server, McpLine is a line for it; it sends the
// opener every line the server writes (McpLine) and, once, McpServerEnded. Real:
// member/stdio_tool_server.cpp (a process on pipes); simulated: tests/sim/sim_tool_server.cpp.
using mcp_transport = caf::typed_actor<caf::reacts_to<McpOpen>, caf::reacts_to<McpLine>>;
using mcp_listener = caf::typed_actor<caf::reacts_to<McpLine>, caf::reacts_to<McpServerEnded>>;

// The trace port: TraceEvent in; `trace_atom` reads every line back (tests, mur trace).
// (TraceEvent, blob bytes): an event that names a content blob (task_end's transcript under
// trace.capture: content): the blob is stored first, as `blobs/<sha256 of its bytes>`.
// Real and simulated: actors/trace_recorder.cpp with a file sink or none.
using trace_port = caf::typed_actor<caf::reacts_to<TraceEvent>, caf::reacts_to<TraceEvent, std::string>,
                                    caf::replies_to<trace_atom>::with<std::vector<std::string>>>;

// The launcher's end of one member's lifeline: closing it (an exit, or close_atom) is the EOF the
// member sees. Real: launcher/run/process_spawner.cpp (owns the pipe's write end); simulated:
// spawn_lifeline_end in actors/lifeline.hpp.
using lifeline_end = caf::typed_actor<caf::reacts_to<caf::close_atom>>;
// Who is told that a lifeline closed. Real: member/formation_join.cpp (a reader thread);
// simulated: spawn_lifeline_watch in actors/lifeline.hpp.
using lifeline_listener = caf::typed_actor<caf::reacts_to<lifeline_atom>>;

// The spawn port: starts a member with its bundle and answers once its door exists. Real:
// launcher/run/process_spawner.cpp (a `mur run` process); simulated: tests/sim/sim_world.cpp.
using spawn_port = caf::typed_actor<caf::replies_to<SpawnMember, BundleRef>::with<MemberStarted, lifeline_end>,
                                    caf::reacts_to<SendAddresses>, caf::reacts_to<KillMember>>;
// What a spawn port tells its requester (the launcher) about the members it started.
using spawn_listener = caf::typed_actor<caf::reacts_to<spawned_atom, std::string, std::int64_t>,
                                        caf::reacts_to<MemberExited>>;

// The child port: starts a delegated sub-capsule for one delegation and ends it
// (messages/wire/child_spawn.hpp). Real: member/child_spawner.cpp (a one-task `mur run` process holding a
// spawner lifeline); simulated: tests/sim/sim_world.cpp.
using child_port = caf::typed_actor<caf::replies_to<StartChild>::with<ChildStarted, Bearer>,
                                    caf::reacts_to<EndChild>>;

// The live ledger: one slot per live delegated child, formation-wide (messages/wire/live_slot.hpp).
// Real: member/live_ledger.cpp (a lock file per slot, held by the process that started the
// child); simulated: tests/sim/sim_live_ledger.cpp (one counter for the whole simulated formation).
using live_port = caf::typed_actor<caf::replies_to<TakeLiveSlot>::with<LiveSlot>, caf::reacts_to<FreeLiveSlot>>;

// Where the launcher reports its progress. Real: launcher/run/cmd_run_roster.cpp (prints);
// simulated: spawn_progress_log in tests/sim/sim_world.cpp.
using progress_port = caf::typed_actor<caf::reacts_to<FormationProgress>>;

// Who supervises a member actor: told each task that ended (its actor reported its end), the
// launch task's ending once, then `(ended_atom, member, exit code)` exactly once. Real:
// member/run_capsule.cpp (writes out/result.txt, prints the answer, exits); simulated: the sim
// spawn port.
using supervisor_port = caf::typed_actor<caf::reacts_to<task_end_atom, TaskView>, caf::reacts_to<TaskEvent>,
                                         caf::reacts_to<ended_atom, std::string, std::int32_t>>;

} // namespace mur
