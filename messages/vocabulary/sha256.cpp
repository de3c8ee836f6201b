#include "messages/vocabulary/sha256.hpp"

#include <sodium.h>

#include <stdexcept>

namespace mur {
namespace {
std::string to_hex(const unsigned char* p, std::size_t n) {
  std::string out(2 * n + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), p, n);
  out.resize(2 * n);
  return out;
}
void init() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}
} // namespace

std::string sha256_hex(const std::string& bytes) {
  init();
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(h, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return to_hex(h, sizeof h);
}

struct CapsuleDigest::State {
  crypto_hash_sha256_state sha;
};

CapsuleDigest::CapsuleDigest() : st_(std::make_unique<State>()) {
  init();
  crypto_hash_sha256_init(&st_->sha);
}

CapsuleDigest::~CapsuleDigest() = default;

void CapsuleDigest::begin_file(const std::string& path, std::uint64_t length) {
  const std::string frame = path + std::string(1, '\0') + std::to_string(length) + std::string(1, '\0');
  update(frame.data(), frame.size());
}

void CapsuleDigest::update(const char* data, std::size_t n) {
  crypto_hash_sha256_update(&st_->sha, reinterpret_cast<const unsigned char*>(data), n);
}

std::string CapsuleDigest::hex() {
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&st_->sha, h);
  return to_hex(h, sizeof h);
}

std::string capsule_digest(const std::vector<std::pair<std::string, std::string>>& files) {
  CapsuleDigest d;
  for (const auto& [path, bytes] : files) {
    d.begin_file(path, bytes.size());
    d.update(bytes.data(), bytes.size());
  }
  return d.hex();
}

bool is_sha256_hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

} // namespace mur
