// formation_messages.hpp — what the launcher actor, its spawn port and its reporter say.
//
// Invariant: a member is started with its bundle (tokens, through an unsafe, unprintable
// pointer) and reports back only what its readiness line carries — name, session id, url, pid;
// its end is reported once with its exit code. No token is ever part of a printable field.
// Seed: "The other members, the peers, start first, each counted ready only once its door
// answers as the session it reported. The entry member starts last."
#pragma once

#include "messages/formation_bundle.hpp"
#include "messages/model_turn.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>

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
  bool operator==(const SpawnMember& o) const {
    return name == o.name && formation_id == o.formation_id && entry == o.entry && task == o.task &&
           addresses == o.addresses;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SpawnMember& x) {
  return f(caf::meta::type_name("mur::SpawnMember"), x.name, x.formation_id, x.entry, x.task, x.addresses);
}

// The channel's first line, as the spawn port hands it to the member's runtime.
struct BundleRef {
  std::shared_ptr<const FormationBundle> bundle;
};

struct MemberStarted {
  std::string name;
  std::string session_id;
  std::string url;
  std::int64_t pid = 0;
  bool operator==(const MemberStarted& o) const {
    return name == o.name && session_id == o.session_id && url == o.url && pid == o.pid;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, MemberStarted& x) {
  return f(caf::meta::type_name("mur::MemberStarted"), x.name, x.session_id, x.url, x.pid);
}

// Spawn port → the requester, one-way, as soon as a member's process exists (before it is ready):
// `(spawned_atom, std::string name, std::int64_t pid)`. A port that runs no processes need not
// send it; MemberStarted's pid then stands for it.
using spawned_atom = caf::atom_constant<caf::atom("mspawned")>;

struct MemberExited {
  std::string name;
  std::int32_t exit_code = 0; // 128+N when killed by signal N
  std::string stderr_tail;    // its last stderr lines, "\n    | line" each ("" ⇒ none kept)
  bool operator==(const MemberExited& o) const {
    return name == o.name && exit_code == o.exit_code && stderr_tail == o.stderr_tail;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, MemberExited& x) {
  return f(caf::meta::type_name("mur::MemberExited"), x.name, x.exit_code, x.stderr_tail);
}

struct KillMember {
  std::string name;
  bool operator==(const KillMember& o) const { return name == o.name; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, KillMember& x) {
  return f(caf::meta::type_name("mur::KillMember"), x.name);
}

struct SendAddresses {
  std::string name;                  // whose channel
  std::vector<MemberText> addresses; // member → url
  bool operator==(const SendAddresses& o) const { return name == o.name && addresses == o.addresses; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, SendAddresses& x) {
  return f(caf::meta::type_name("mur::SendAddresses"), x.name, x.addresses);
}

// One line of the launcher's progress: formation, ready, entry, failed, ended.
struct FormationProgress {
  std::string event;        // formation | ready | entry | member_exited | member_ended | failed | ended
  std::string formation_id;
  std::string member;
  std::string session_id;
  std::string url;
  std::int64_t pid = 0;
  std::string detail;       // failed: the E-RUN-045 text; ended: how it ended; member_exited /
                            // member_ended: which member, how it ended, its stderr tail
  std::int32_t exit_code = 0;
  bool operator==(const FormationProgress& o) const {
    return event == o.event && formation_id == o.formation_id && member == o.member &&
           session_id == o.session_id && url == o.url && pid == o.pid && detail == o.detail &&
           exit_code == o.exit_code;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, FormationProgress& x) {
  return f(caf::meta::type_name("mur::FormationProgress"), x.event, x.formation_id, x.member, x.session_id,
           x.url, x.pid, x.detail, x.exit_code);
}

} // namespace mur

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mur::BundleRef)
