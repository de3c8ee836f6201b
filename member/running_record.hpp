// running_record.hpp — `$MURMUR_HOME/running/<ses_id>.json`: how `mur ps/stop/send` find a
// running session and its operator credential.
//
// Invariant: the directory is 0700 and each record 0600, written whole (a temporary file
// renamed into place) after the door serves and removed when the session ends. The record is the
// one file that holds a door's tokens — the operator's and each declared credential's; only
// `mur token` prints one (it is that command's purpose). A record is
// trusted only while its pid is alive with the same process_start.
// Spec: docs/spec/capsule.md §Running records; docs/spec/choices.md §Files.
#pragma once

#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_bundle.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct RunningRecord {
  std::string session_id;
  std::int64_t pid = 0;
  std::string process_start;
  std::string url;              // http://127.0.0.1:PORT
  std::string capsule_name;
  std::string capsule_version;
  std::string workdir;
  std::string formation_id;     // "" outside a formation
  std::string formation_member;
  bool formation_lifeline = false;
  std::optional<LauncherIdentity> formation_launcher; // from the channel's first line, if it named one
  std::string spawned_by;       // a delegated child: its parent's session ("" otherwise)
  std::int64_t started_at = 0;  // unix ms
  std::optional<DoorToken> operator_token; // absent for a public door
  // Each declared credential's token (network.authentication.credentials), in file order:
  // what `mur token NAME` prints for an A2A client to call with exactly its scopes.
  std::vector<std::pair<std::string, DoorToken>> credential_tokens;
};

std::string running_dir();        // $MURMUR_HOME/running
void write_running_record(const RunningRecord& r);
std::optional<RunningRecord> read_running_record(const std::string& session_id);
std::vector<RunningRecord> list_running_records(); // sorted by session id (start order)
void remove_running_record(const std::string& session_id);
// pid alive and its start stamp unchanged.
bool record_is_live(const RunningRecord& r);

// What the launcher's record shares with a session's (launcher/base/launcher_record.hpp): the
// file of an id, the ids whose files start with `prefix`, sorted; a pid alive with that start stamp.
std::string running_file(const std::string& id);
std::vector<std::string> running_ids(const std::string& prefix);
bool process_is_live(std::int64_t pid, const std::string& process_start);

// Writes `text` to `path` as an owner-only (0600) file: a temporary name, then a rename, so a
// reader never sees half a record (E-RUN-048 when it cannot).
void write_private_file(const std::string& path, const std::string& text);

} // namespace mur
