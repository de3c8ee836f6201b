// formation_messages.hpp — what the launcher actor, its spawn port and its reporter say.
//
// Invariant: a member is started with its bundle (tokens, through an unsafe, unprintable
// pointer) and reports back only what its readiness line carries — name, session id, url, pid;
// its end is reported once with its exit code. No token is ever part of a printable field.
// Rule: a peer is ready only once its door answers as the session it reported; the entry is
// started after all peers are (docs/spec/formation.md §Readiness, §Launch).
#pragma once

#include "messages/credentials/formation_bundle.hpp"
#include "messages/vocabulary/formation_event.hpp"
#include "messages/vocabulary/message_fields.hpp"
#include "messages/wire/model_turn.hpp"

#include <caf/allowed_unsafe_message_type.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mur {

struct SpawnMember {
  std::string name;
  std::string formation_id;
  bool entry = false;
  std::string task;                    // entry in --task mode: the one task; "" = serve
  std::vector<MemberText> addresses;   // the entry's channel already holds its address line
  MUR_FIELDS(name, formation_id, entry, task, addresses)
};

// The channel's first line, as the spawn port hands it to the member's runtime.
struct BundleRef {
  std::shared_ptr<const FormationBundle> bundle;
};

struct MemberStarted {
  std::string name;
  std::string session_id;
  std::string url;
  std::int64_t pid = 0;
  MUR_FIELDS(name, session_id, url, pid)
};

// Spawn port → the requester, one-way, as soon as a member's process exists (before it is ready):
// `(spawned_atom, std::string name, std::int64_t pid)`. A port that runs no processes need not
// send it; MemberStarted's pid then stands for it.
// (spawned_atom is in the type-ID block, messages/vocabulary/message_types.hpp.)

struct MemberExited {
  std::string name;
  std::int32_t exit_code = 0; // 128+N when killed by signal N
  std::string stderr_tail;    // its last stderr lines, "\n    | line" each ("" ⇒ none kept)
  std::string limit;          // "E-LIM-…: …. Fix: …" when its group's limit explains its end, else ""
  MUR_FIELDS(name, exit_code, stderr_tail, limit)
};

struct KillMember {
  std::string name;
  MUR_FIELDS(name)
};

struct SendAddresses {
  std::string name;                  // whose channel
  std::vector<MemberText> addresses; // member → url
  MUR_FIELDS(name, addresses)
};

// One line of the launcher's progress: formation, ready, entry, member_exited, member_ended, failed, ended.
struct FormationProgress {
  FormationEvent event = FormationEvent::formation;
  std::string formation_id;
  std::string member;
  std::string session_id;
  std::string url;
  std::int64_t pid = 0;
  std::string detail;       // failed: the E-RUN-045 text; ended: how it ended; member_exited /
                            // member_ended: which member, how it ended, its stderr tail
  std::int32_t exit_code = 0;
  MUR_FIELDS(event, formation_id, member, session_id, url, pid, detail, exit_code)
};

} // namespace mur

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mur::BundleRef)
