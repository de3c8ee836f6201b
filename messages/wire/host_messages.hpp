// host_messages.hpp — what a launcher asks a host agent (`mur host`) over their TLS connection,
// and what it answers.
//
// Invariant: a check names capsules by name, exact version and the sha256 the launcher's roster
// admitted; the host answers for each one whether its own store holds exactly that (and why
// not), with its own name and mur's version. No token, key or path of the launcher's crosses.
// Rule: admission checks every host a roster names (docs/hosts.md §What doctor checks).
#pragma once

#include "messages/vocabulary/message_fields.hpp"
#include "messages/wire/formation_messages.hpp"

#include <caf/actor.hpp>
#include <caf/detail/stringification_inspector.hpp>
#include <caf/meta/type_name.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mur {

struct HostCapsule {
  std::string name;
  std::string version;
  std::string sha256; // as installed where the launcher runs ("" when it does not know)
  MUR_FIELDS(name, version, sha256)
};

struct HostCheck {
  std::vector<HostCapsule> capsules;
  MUR_FIELDS(capsules)
};

struct HostCapsuleState {
  std::string name;
  std::string version;
  bool installed = false; // installed there at that version, with that sha256
  std::string why;        // when not: not installed, another sha256, …
  MUR_FIELDS(name, version, installed, why)
};

struct HostReport {
  std::string host_name;
  std::string mur_version;
  std::vector<HostCapsuleState> capsules; // in the order asked
  MUR_FIELDS(host_name, mur_version, capsules)
};

// A piece of a capsule folder a launcher installs on the host (`mur install --host`): the files
// in install's order, each in pieces of at most host_upload_piece bytes at increasing offsets;
// then one with `last`, which has the host install what it received into its global store.
inline constexpr std::size_t host_upload_piece = 1u << 20;
struct HostUpload {
  std::string upload_id; // the launcher's, one per install
  std::string rel;       // the file's path in the folder ('/'-separated, relative); "" with `last`
  std::uint64_t offset = 0;
  std::string bytes;
  bool executable = false;
  bool last = false;
  bool force = false;    // with `last`: replace a copy of the same version with other bytes
  MUR_FIELDS(upload_id, rel, offset, bytes, executable, last, force)
};

// The host's answer to each piece: taken (ok, and after `last`: what it installed), or refused
// with the code, message and fix its install gave (the upload is then dropped).
struct HostInstalled {
  bool ok = false;
  std::string kind;    // after `last`: installed, replaced or already installed
  std::string name, version, sha256;
  std::string code, message, fix;
  MUR_FIELDS(ok, kind, name, version, sha256, code, message, fix)
};

// -- running members on a host (launcher/run/host_agent.hpp, actors/host_formation.hpp) -----------

// One member a formation may start on the host: its capsule at the version and sha256 admitted.
struct HostLaunch {
  std::string name;
  std::string capsule;
  std::string version;
  std::string sha256;
  MUR_FIELDS(name, capsule, version, sha256)
};

// Launcher → host agent: open a formation here, for these members; answered with the host's
// formation actor (actors/host_formation.hpp), which watches `launcher` (the launcher's side,
// actors/host_route.hpp) and ends every member it started when it loses it.
struct HostOpen {
  std::string formation_id;
  std::vector<HostLaunch> members;
  caf::actor launcher;
  MUR_FIELDS(formation_id, members, launcher)
};

// A member's channel line (its bundle) on its way to the host inside the TLS connection. It is
// serialized, never printed: a printed message shows `<withheld>` in its place.
struct HostSecret {
  std::string text;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, HostSecret& x) {
  return f(caf::meta::type_name("mur::HostSecret"), x.text);
}
inline void inspect(caf::detail::stringification_inspector& f, HostSecret&) {
  std::string shown = "<withheld>";
  f(caf::meta::type_name("mur::HostSecret"), shown);
}

// Launcher → host formation, every beat period, answered with the same: each side learns that
// the other is gone when beats stop (docs/hosts.md §The lifeline across hosts).
struct HostBeat {
  std::string formation_id;
  MUR_FIELDS(formation_id)
};

// Launcher → host agent, once a formation there has ended: every trace its members left there
// (their sessions' trace.jsonl), so `mur trace show` on the launcher's machine sees them.
struct HostTraces {
  std::string formation_id;
  MUR_FIELDS(formation_id)
};

// One session's trace as the host holds it: its member, its session id, the file's bytes.
inline constexpr std::size_t host_traces_limit = 64u << 20; // all of a formation's, at most
struct HostTrace {
  std::string member;
  std::string session_id;
  std::string text;
  MUR_FIELDS(member, session_id, text)
};

} // namespace mur
