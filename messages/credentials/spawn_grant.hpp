// spawn_grant.hpp — the grant a delegating member hands its child on the child's stdin: the key
// of the child's door tokens, who spawned it, for which delegation, and how deep it stands.
//
// Invariant: the grant is one JSON line `{"door_key":"<64 hex>","spawned_by":"ses_…",
// "delegation":"dlg_…","depth":N,"live_dir":"/…"}` — exactly those keys, once each, `live_dir`
// optional; depth 1–64, the parent's own depth plus one (a formation's members are at 0);
// live_dir an absolute path of at most 1024 bytes without control characters, the formation's
// live ledger (os/live_slots.hpp) the child's own delegations take their slots from — and travels only through the
// child's stdin, never argv, environment, stdout, a trace or a log. The key is 32 random bytes
// held in a DoorKey (zeroed on drop); the line is a GrantLine (a secret text: it cannot be
// printed). A refused grant says why without quoting any of it (E-RUN-052).
// Rule: a child belongs to the member that started it (docs/spec/choices.md §Sub-capsules) —
// the parent alone can open the child's door, because only it drew the key the child's door trusts.
#pragma once

#include "messages/vocabulary/secret_text.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace mur {

// The longest grant line a child reads (far above the ~170 bytes a grant takes).
inline constexpr std::size_t SPAWN_GRANT_MAX_BYTES = 4096;

// 32 bytes of a door-token key, zeroed when dropped.
class DoorKey {
public:
  DoorKey() = default;
  DoorKey(const DoorKey&) = delete;
  DoorKey& operator=(const DoorKey&) = delete;
  DoorKey(DoorKey&& other) noexcept;
  DoorKey& operator=(DoorKey&& other) noexcept;
  ~DoorKey();

  static DoorKey random(); // libsodium's CSPRNG
  const unsigned char (&bytes() const)[32] { return bytes_; }
  unsigned char (&bytes())[32] { return bytes_; }

private:
  unsigned char bytes_[32] = {};
};

struct SpawnGrantLineTag;
using GrantLine = SecretText<SpawnGrantLineTag>;

struct SpawnGrant {
  DoorKey key;
  std::string spawned_by; // the parent's ses_ id
  std::string delegation; // the dlg_ id of the delegation this child serves
  int depth = 1;          // how many delegations stand between it and its formation's member
  std::string live_dir;   // the formation's live ledger ("" when the grant names none)
};

// The deepest a grant may name (the limit of delegation is far below it: actors/member.hpp).
inline constexpr int SPAWN_GRANT_MAX_DEPTH = 64;

// Whether `id` can name a delegation (and so a directory): 1–64 of [a-z0-9_], not starting with '_'.
bool is_delegation_id(std::string_view id);

// Whether `dir` can be a grant's live_dir: absolute, 1–1024 bytes, valid UTF-8, no control character.
bool is_grantable_live_dir(std::string_view dir);

// The grant line, without its newline (os/channel_writer adds it). A live_dir that is not
// grantable is left out.
GrantLine render_spawn_grant(const DoorKey& key, const std::string& spawned_by, const std::string& delegation,
                             int depth, const std::string& live_dir = "");

// Reads a grant line (one trailing newline allowed). Throws mur::Failure E-RUN-052 naming what is
// wrong, never quoting the text.
SpawnGrant parse_spawn_grant(std::string_view text);

} // namespace mur
