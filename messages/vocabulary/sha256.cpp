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

std::string capsule_digest(const std::vector<std::pair<std::string, std::string>>& files) {
  init();
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  auto feed = [&st](const std::string& s) {
    crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(s.data()), s.size());
  };
  const std::string zero(1, '\0');
  for (const auto& [path, bytes] : files) {
    feed(path);
    feed(zero);
    feed(std::to_string(bytes.size()));
    feed(zero);
    feed(bytes);
  }
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&st, h);
  return to_hex(h, sizeof h);
}

bool is_sha256_hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

} // namespace mur
