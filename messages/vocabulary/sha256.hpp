// sha256.hpp — content hashes for the capsule store (libsodium's SHA-256, lowercase hex).
//
// Invariant: a capsule's digest covers every file it consists of, with each file's path and
// length framed, so no rename, reordering or split of bytes between files keeps the digest.
// Rule: admission binds each member to its capsule's exact bytes
// (docs/spec/formation.md §Admission order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mur {

std::string sha256_hex(const std::string& bytes);

// Digest of (relative path, bytes) pairs in the order given: for each file,
// path ‖ 0x00 ‖ decimal length ‖ 0x00 ‖ bytes.
std::string capsule_digest(const std::vector<std::pair<std::string, std::string>>& files);

// The same digest fed as the files are read: begin_file(path, length), then the file's bytes
// in any number of pieces (their lengths must add up to `length`), then the next file; hex()
// once at the end. A large capsule is hashed without holding its bytes.
class CapsuleDigest {
public:
  CapsuleDigest();
  ~CapsuleDigest();
  CapsuleDigest(const CapsuleDigest&) = delete;
  CapsuleDigest& operator=(const CapsuleDigest&) = delete;
  void begin_file(const std::string& path, std::uint64_t length);
  void update(const char* data, std::size_t n);
  std::string hex();

private:
  struct State;
  std::unique_ptr<State> st_;
};

bool is_sha256_hex(const std::string& s);

} // namespace mur
