// door_target.hpp — the running door a command line names, and one JSON-RPC call to it.
//
// Invariant: TARGET `ses_…` is found through its running record (live pid, same start stamp)
// and called with the record's operator token, which goes only into the Authorization header;
// TARGET `frm_…` is that formation's entry member (its launcher record names it); a URL target
// is called without a credential unless it is the door of a running record (the URL `mur ps`
// shows), whose operator token is then used. An unknown target and an unreachable door are
// named with the codes of the command that asks (TargetCodes). A task id is found at the live
// session whose door knows it (door_holding).
// Spec: docs/spec/choices.md §Command line (`mur send`, `mur cancel`).
#pragma once

#include "http/curl_pool.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/wire/door_request.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mur {

struct TaskView;

struct DoorTarget {
  std::string url;
  std::optional<DoorToken> token;
  std::string session_id;   // the running record serving it ("" for a URL no record names)
  std::string formation_id; // that session's formation ("" when none)
  std::string workdir;      // that session's work directory, where its trace is ("" when none)
};

// The codes a command names its failures with: no such target, the door unreachable.
struct TargetCodes {
  const char* unknown;
  const char* unreachable;
  const char* help;
};
inline constexpr TargetCodes send_codes{"E-SND-001", "E-SND-002", "see mur send --help"};
inline constexpr TargetCodes cancel_codes{"E-CAN-001", "E-CAN-002", "see mur cancel --help"};

DoorTarget find_door(const std::string& target, const TargetCodes& codes = send_codes);

// The live session whose door holds `task_id` (asked with each running record's operator
// token); none is the Failure `code`.
DoorTarget door_holding(CurlPool& pool, const std::string& task_id, const char* code);

// The HTTP call of `request` to `door` (JSON-RPC, A2A-Version 1.0, its credential only in the
// Authorization header), not yet submitted.
HttpCall door_call(const DoorTarget& door, const nlohmann::json& request);

// One call, waited for; with `task`, an event stream's results are folded into it as they
// arrive (on the pool's thread, before the call ends).
HttpOutcome call_door(CurlPool& pool, const DoorTarget& door, const nlohmann::json& request, TaskView* task = nullptr);

// The door's reply; a call that reached no door is `codes.unreachable`.
DoorReply reply_of(const HttpOutcome& w, const TargetCodes& codes = send_codes);

} // namespace mur
