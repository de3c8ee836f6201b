// spawn_grant.cpp — see spawn_grant.hpp.
#include "messages/credentials/spawn_grant.hpp"

#include "messages/credentials/sodium_ready.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/strict_json.hpp"

#include <nlohmann/json.hpp>
#include <sodium.h>

#include <cstring>

namespace mur {

DoorKey::DoorKey(DoorKey&& other) noexcept {
  std::memcpy(bytes_, other.bytes_, sizeof bytes_);
  sodium_memzero(other.bytes_, sizeof other.bytes_);
}

DoorKey& DoorKey::operator=(DoorKey&& other) noexcept {
  if (this != &other) {
    std::memcpy(bytes_, other.bytes_, sizeof bytes_);
    sodium_memzero(other.bytes_, sizeof other.bytes_);
  }
  return *this;
}

DoorKey::~DoorKey() { sodium_memzero(bytes_, sizeof bytes_); }

DoorKey DoorKey::random() {
  ensure_sodium();
  DoorKey k;
  randombytes_buf(k.bytes_, sizeof k.bytes_);
  return k;
}

bool is_delegation_id(std::string_view id) {
  if (id.empty() || id.size() > 64 || id.front() == '_') return false;
  for (char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

GrantLine render_spawn_grant(const DoorKey& key, const std::string& spawned_by, const std::string& delegation,
                             int depth, const std::string& live_dir) {
  char hex[65];
  sodium_bin2hex(hex, sizeof hex, key.bytes(), sizeof key.bytes());
  std::string line = "{\"door_key\":\"";
  line.append(hex, 64);
  sodium_memzero(hex, sizeof hex);
  // Both ids are checked shapes (no character JSON would escape), so they are written as they are.
  line += "\",\"spawned_by\":\"" + spawned_by + "\",\"delegation\":\"" + delegation +
          "\",\"depth\":" + std::to_string(depth);
  if (is_grantable_live_dir(live_dir)) line += ",\"live_dir\":" + nlohmann::json(live_dir).dump();
  line += "}";
  return GrantLine::adopt(std::move(line));
}

bool is_grantable_live_dir(std::string_view dir) {
  if (dir.empty() || dir.size() > 1024 || dir.front() != '/') return false;
  for (unsigned char c : dir)
    if (c < 0x20 || c == 0x7f) return false;
  try { // valid UTF-8, as a JSON string must be: judged by the library that writes the grant
    (void)nlohmann::json(std::string(dir)).dump();
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
  return true;
}

namespace {

[[noreturn]] void refuse(const std::string& why) {
  throw Failure("E-RUN-052", "the spawn grant on standard input " + why,
                "--spawn-grant-stdin is for a delegating member starting its child; run the capsule without it");
}

} // namespace

SpawnGrant parse_spawn_grant(std::string_view text) {
  if (text.size() > SPAWN_GRANT_MAX_BYTES) refuse("is longer than " + std::to_string(SPAWN_GRANT_MAX_BYTES) + " bytes");
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.empty()) refuse("is empty (nothing was read before end of input)");
  if (text.find('\n') != std::string_view::npos) refuse("is more than one line");
  auto j = parse_strict_json(text);
  if (!j || !j->is_object()) refuse("is not one JSON object");
  const bool has_live = j->contains("live_dir");
  if (j->size() != (has_live ? 5u : 4u))
    refuse("must have exactly the keys door_key, spawned_by, delegation and depth, and live_dir at most besides");
  for (const char* k : {"door_key", "spawned_by", "delegation"})
    if (!j->contains(k) || !(*j)[k].is_string())
      refuse(std::string("has no string ") + k);
  std::string hex = (*j)["door_key"].get<std::string>();
  SpawnGrant g;
  bool hex_ok = hex.size() == 64;
  for (char c : hex) hex_ok = hex_ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  std::size_t got = 0;
  if (hex_ok)
    hex_ok = sodium_hex2bin(g.key.bytes(), sizeof g.key.bytes(), hex.data(), hex.size(), nullptr, &got, nullptr) == 0 &&
             got == sizeof g.key.bytes();
  sodium_memzero(hex.data(), hex.size());
  auto& field = (*j)["door_key"].get_ref<std::string&>();
  sodium_memzero(field.data(), field.size());
  if (!hex_ok) refuse("has a door_key that is not 64 lowercase hex digits");
  g.spawned_by = (*j)["spawned_by"].get<std::string>();
  if (!ids::is_valid(g.spawned_by, ids::session)) refuse("has a spawned_by that is not a session id (ses_ + 32 hex)");
  g.delegation = (*j)["delegation"].get<std::string>();
  if (!is_delegation_id(g.delegation)) refuse("has a delegation that is not a delegation id");
  const auto& depth = (*j)["depth"];
  if (!depth.is_number_integer() || depth.get<std::int64_t>() < 1 || depth.get<std::int64_t>() > SPAWN_GRANT_MAX_DEPTH)
    refuse("has a depth that is not a whole number from 1 to " + std::to_string(SPAWN_GRANT_MAX_DEPTH));
  g.depth = static_cast<int>(depth.get<std::int64_t>());
  if (has_live) {
    const auto& live = (*j)["live_dir"];
    if (!live.is_string() || !is_grantable_live_dir(live.get_ref<const std::string&>())) refuse("has a live_dir that is not an absolute path of at most 1024 bytes without control characters");
    g.live_dir = live.get<std::string>();
  }
  return g;
}

} // namespace mur
