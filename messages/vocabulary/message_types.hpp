// message_types.hpp — the vocabulary: the one CAF type-ID block of every message type and atom.
//
// Invariant: every type an actor sends or receives, and every atom, is named here once; its
// printable name (`caf::type_name<T>::value`) comes from this block and nowhere else, and
// `register_message_types` (messages/wire/register_messages.hpp) registers exactly the types of
// this block, in block order. Atoms are
// spelt `x_atom_v` when sent. The unsafe types (Bearer, BundleRef) are deliberately absent:
// they never leave a process and never print. A test-only vocabulary may append its own block
// after this one (`caf::id_block::mur::end`), as tests/sim/sim_atoms.hpp does.
// Rule: one message vocabulary, whether the ports behind the actors are real or simulated
// (docs/spec/choices.md §Actors and ports).
#pragma once

#include <caf/fwd.hpp>
#include <caf/type_id.hpp>

#include <cstdint>
#include <vector>

namespace mur {

struct NoAnswer;
struct Usage;
struct Budget;
struct TaskView;
class DoorScopes;
struct DoorAuthorization;
struct DoorRequest;
struct DoorReply;
struct TaskEvent;
struct TaskStreamLost;
struct DoorCallTo;
struct CallMember;
struct CallStart;
struct CallEnded;
struct AbandonCall;
struct CallCanceled;
struct MemberText;
struct MemberAnswer;
struct ModelTurnRequest;
struct ModelTurn;
struct ModelCallStats;
struct ModelText;
struct ToolRequest;
struct ToolReply;
struct OwnTool;
struct ToolsListed;
struct McpOpen;
struct McpLine;
struct McpServerEnded;
struct TraceEvent;
struct TaskWorking;
struct TaskFinished;
struct SpawnMember;
struct MemberStarted;
struct MemberExited;
struct KillMember;
struct SendAddresses;
struct StartChild;
struct ChildStarted;
struct EndChild;
struct FormationProgress;
struct TakeLiveSlot;
struct LiveSlot;
struct FreeLiveSlot;
struct TaskAsks;
struct TaskResumed;
struct TaskAnswer;
struct CallAsks;
struct AnswerCall;
struct HostCapsule;
struct HostCheck;
struct HostCapsuleState;
struct HostReport;
struct HostUpload;
struct HostInstalled;
struct HostLaunch;
struct HostOpen;
struct HostSecret;
struct HostBeat;
struct HostTraces;
struct HostTrace;
enum class LauncherDeadline : std::uint8_t;

} // namespace mur

CAF_BEGIN_TYPE_ID_BLOCK(mur, caf::first_custom_type_id)

  // -- messages (structs list their fields once: MUR_FIELDS, messages/vocabulary/message_fields.hpp)

  CAF_ADD_TYPE_ID(mur, (mur::NoAnswer))
  CAF_ADD_TYPE_ID(mur, (mur::Usage))
  CAF_ADD_TYPE_ID(mur, (mur::Budget))
  CAF_ADD_TYPE_ID(mur, (mur::TaskView))
  CAF_ADD_TYPE_ID(mur, (std::vector<mur::TaskView>))
  CAF_ADD_TYPE_ID(mur, (mur::DoorScopes))
  CAF_ADD_TYPE_ID(mur, (mur::DoorAuthorization))
  CAF_ADD_TYPE_ID(mur, (mur::DoorRequest))
  CAF_ADD_TYPE_ID(mur, (mur::DoorReply))
  CAF_ADD_TYPE_ID(mur, (mur::TaskEvent))
  CAF_ADD_TYPE_ID(mur, (mur::TaskStreamLost))
  CAF_ADD_TYPE_ID(mur, (mur::DoorCallTo))
  CAF_ADD_TYPE_ID(mur, (mur::CallMember))
  CAF_ADD_TYPE_ID(mur, (mur::CallStart))
  CAF_ADD_TYPE_ID(mur, (mur::CallEnded))
  CAF_ADD_TYPE_ID(mur, (mur::AbandonCall))
  CAF_ADD_TYPE_ID(mur, (mur::CallCanceled))
  CAF_ADD_TYPE_ID(mur, (mur::MemberText))
  CAF_ADD_TYPE_ID(mur, (std::vector<mur::MemberText>))
  CAF_ADD_TYPE_ID(mur, (mur::MemberAnswer))
  CAF_ADD_TYPE_ID(mur, (mur::ModelTurnRequest))
  CAF_ADD_TYPE_ID(mur, (mur::ModelTurn))
  CAF_ADD_TYPE_ID(mur, (mur::ModelCallStats))
  CAF_ADD_TYPE_ID(mur, (mur::ModelText))
  CAF_ADD_TYPE_ID(mur, (mur::ToolRequest))
  CAF_ADD_TYPE_ID(mur, (mur::ToolReply))
  CAF_ADD_TYPE_ID(mur, (mur::OwnTool))
  CAF_ADD_TYPE_ID(mur, (std::vector<mur::OwnTool>))
  CAF_ADD_TYPE_ID(mur, (mur::ToolsListed))
  CAF_ADD_TYPE_ID(mur, (mur::McpOpen))
  CAF_ADD_TYPE_ID(mur, (mur::McpLine))
  CAF_ADD_TYPE_ID(mur, (mur::McpServerEnded))
  CAF_ADD_TYPE_ID(mur, (mur::TraceEvent))
  CAF_ADD_TYPE_ID(mur, (mur::TaskWorking))
  CAF_ADD_TYPE_ID(mur, (mur::TaskFinished))
  CAF_ADD_TYPE_ID(mur, (mur::SpawnMember))
  CAF_ADD_TYPE_ID(mur, (mur::MemberStarted))
  CAF_ADD_TYPE_ID(mur, (mur::MemberExited))
  CAF_ADD_TYPE_ID(mur, (mur::KillMember))
  CAF_ADD_TYPE_ID(mur, (mur::SendAddresses))
  CAF_ADD_TYPE_ID(mur, (mur::StartChild))
  CAF_ADD_TYPE_ID(mur, (mur::ChildStarted))
  CAF_ADD_TYPE_ID(mur, (mur::EndChild))
  CAF_ADD_TYPE_ID(mur, (mur::FormationProgress))
  CAF_ADD_TYPE_ID(mur, (mur::LauncherDeadline))
  CAF_ADD_TYPE_ID(mur, (mur::TakeLiveSlot))
  CAF_ADD_TYPE_ID(mur, (mur::LiveSlot))
  CAF_ADD_TYPE_ID(mur, (mur::FreeLiveSlot))
  CAF_ADD_TYPE_ID(mur, (mur::TaskAsks))
  CAF_ADD_TYPE_ID(mur, (mur::TaskResumed))
  CAF_ADD_TYPE_ID(mur, (mur::TaskAnswer))
  CAF_ADD_TYPE_ID(mur, (mur::CallAsks))
  CAF_ADD_TYPE_ID(mur, (mur::AnswerCall))
  CAF_ADD_TYPE_ID(mur, (mur::HostCapsule))
  CAF_ADD_TYPE_ID(mur, (std::vector<mur::HostCapsule>))
  CAF_ADD_TYPE_ID(mur, (mur::HostCheck))
  CAF_ADD_TYPE_ID(mur, (mur::HostCapsuleState))
  CAF_ADD_TYPE_ID(mur, (std::vector<mur::HostCapsuleState>))
  CAF_ADD_TYPE_ID(mur, (mur::HostReport))
  CAF_ADD_TYPE_ID(mur, (mur::HostUpload))
  CAF_ADD_TYPE_ID(mur, (mur::HostInstalled))
  CAF_ADD_TYPE_ID(mur, (mur::HostLaunch))
  CAF_ADD_TYPE_ID(mur, (std::vector<mur::HostLaunch>))
  CAF_ADD_TYPE_ID(mur, (mur::HostOpen))
  CAF_ADD_TYPE_ID(mur, (mur::HostSecret))
  CAF_ADD_TYPE_ID(mur, (mur::HostBeat))
  CAF_ADD_TYPE_ID(mur, (mur::HostTraces))
  CAF_ADD_TYPE_ID(mur, (mur::HostTrace))
  CAF_ADD_TYPE_ID(mur, (std::vector<mur::HostTrace>))

  // -- atoms (each at most 10 characters of [0-9A-Za-z_]; CAF 0.17.6 gives atoms no type ID)

  CAF_ADD_ATOM(mur, mur, cancel_atom, "murcancel")        // door → task: cancel it
  CAF_ADD_ATOM(mur, mur, lifeline_atom, "lifeline")       // lifeline reader → member: EOF
  CAF_ADD_ATOM(mur, mur, sigterm_atom, "sigterm")         // signal adapter → member / launcher
  CAF_ADD_ATOM(mur, mur, deadline_atom, "deadline")       // a deadline passed
  CAF_ADD_ATOM(mur, mur, winddown_atom, "winddown")       // member → door: close, cancel, refuse
  CAF_ADD_ATOM(mur, mur, retry_atom, "retry")             // egress: re-offer / re-poll; launcher: probe
  CAF_ADD_ATOM(mur, mur, address_atom, "address")         // channel → member, egress: address line
  CAF_ADD_ATOM(mur, mur, think_atom, "think")             // script model: think_ms passed
  CAF_ADD_ATOM(mur, mur, trace_atom, "trace")             // read back a trace (tests, mur trace)
  CAF_ADD_ATOM(mur, mur, ended_atom, "ended")             // a member's session has ended
  CAF_ADD_ATOM(mur, mur, spawned_atom, "mspawned")        // spawn port → launcher: a member's pid
  CAF_ADD_ATOM(mur, mur, readyline_atom, "readyline")     // process spawner: a member's ready line
  CAF_ADD_ATOM(mur, mur, exited_atom, "mexited")          // process spawner: a member's process ended
  CAF_ADD_ATOM(mur, mur, ready_timeout_atom, "readytmo")  // process spawner: the ready deadline passed
  CAF_ADD_ATOM(mur, mur, task_end_atom, "taskend")        // door → member → supervisor: a task ended
  CAF_ADD_ATOM(mur, mur, gone_atom, "ssegone")            // door server: an SSE client went away
  CAF_ADD_ATOM(mur, mur, flush_atom, "trflush")           // trace recorder: its own flush timer
  CAF_ADD_ATOM(mur, mur, model_retry_atom, "mretry")     // http model: try a request again
  CAF_ADD_ATOM(mur, mur, harness_tick_atom, "hrntick")   // harness model: look at a turn's silence
  CAF_ADD_ATOM(mur, mur, harness_output_atom, "hrnout")  // harness model: the program wrote something
  CAF_ADD_ATOM(mur, mur, tools_atom, "tools")             // tool hub: list the capsule's own tools
  CAF_ADD_ATOM(mur, mur, tool_timeout_atom, "tooltmo")    // tool hub: a call's or a start's deadline
  CAF_ADD_ATOM(mur, mur, confirm_atom, "mconfirm")        // task: a cancel's confirmations are waited for no longer
  CAF_ADD_ATOM(mur, mur, input_timeout_atom, "inputtmo")  // task: a question's lifecycle.input_timeout_secs passed
  CAF_ADD_ATOM(mur, mur, beat_atom, "hostbeat")          // host route / host formation: the beat period passed

CAF_END_TYPE_ID_BLOCK(mur)
