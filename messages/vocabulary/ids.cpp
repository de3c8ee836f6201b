#include "messages/vocabulary/ids.hpp"

#include <sodium.h>

#include <chrono>
#include <mutex>

namespace mur::ids {
namespace {

// Keeps ids of one process strictly increasing: within one millisecond the 12-bit rand_a field
// becomes a counter (RFC 9562 §6.2, method 1); when it overflows, the timestamp moves on by 1.
struct Sequence {
  std::mutex mutex;
  std::uint64_t last_ms = 0;
  std::uint16_t counter = 0;
};

Sequence& sequence() {
  static Sequence s;
  return s;
}

} // namespace

std::string uuid7_hex() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
  auto now_ms = static_cast<std::uint64_t>(
    std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch()).count());

  std::uint64_t ms;
  std::uint16_t rand_a;
  {
    auto& s = sequence();
    std::lock_guard<std::mutex> guard(s.mutex);
    if (now_ms > s.last_ms) {
      s.last_ms = now_ms;
      s.counter = static_cast<std::uint16_t>(randombytes_uniform(0x800)); // leave headroom
    } else if (++s.counter > 0xFFF) {
      ++s.last_ms;
      s.counter = 0;
    }
    ms = s.last_ms;
    rand_a = s.counter;
  }

  unsigned char random[8];
  randombytes_buf(random, sizeof random);
  return uuid7_hex(ms, rand_a, random);
}

std::string uuid7_hex(std::uint64_t ms, std::uint16_t rand_a, const unsigned char (&rand_b)[8]) {
  unsigned char b[16];
  for (int i = 0; i < 6; ++i) b[i] = static_cast<unsigned char>(ms >> (40 - 8 * i));
  b[6] = static_cast<unsigned char>(0x70 | ((rand_a >> 8) & 0x0F));
  b[7] = static_cast<unsigned char>(rand_a & 0xFF);
  for (int i = 0; i < 8; ++i) b[8 + i] = rand_b[i];
  b[8] = static_cast<unsigned char>(0x80 | (b[8] & 0x3F));

  static const char hex[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[2 * i] = hex[b[i] >> 4];
    out[2 * i + 1] = hex[b[i] & 0x0F];
  }
  return out;
}

std::string mint(std::string_view prefix) {
  return std::string(prefix) + uuid7_hex();
}

bool is_valid(std::string_view id, std::string_view prefix) {
  if (id.size() != prefix.size() + 32 || id.substr(0, prefix.size()) != prefix) return false;
  for (char c : id.substr(prefix.size()))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::optional<std::uint64_t> minted_at_ms(std::string_view id, std::string_view prefix) {
  if (!is_valid(id, prefix)) return std::nullopt;
  std::uint64_t ms = 0;
  for (char c : id.substr(prefix.size(), 12))
    ms = (ms << 4) | static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  return ms;
}

} // namespace mur::ids
