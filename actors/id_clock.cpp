// id_clock.cpp — see id_clock.hpp.
#include "actors/id_clock.hpp"

#include "messages/vocabulary/ids.hpp"

#include <sodium.h>

#include <chrono>
#include <stdexcept>

namespace mur {

IdClock::IdClock(const IdClockSpec& spec, const caf::actor_clock& clock, std::string stream)
  : spec_(spec), clock_(&clock), stream_(std::move(stream)) {}

std::int64_t IdClock::now_ms() const {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  if (spec_.simulated)
    return spec_.sim_epoch_ms + duration_cast<milliseconds>(clock_->now().time_since_epoch()).count();
  return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void IdClock::random(unsigned char* out, std::size_t n) {
  if (!keyed_) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
    if (spec_.simulated) {
      std::string material = std::to_string(spec_.seed) + "/" + stream_;
      crypto_generichash(key_.data(), key_.size(), reinterpret_cast<const unsigned char*>(material.data()),
                         material.size(), nullptr, 0);
    } else {
      randombytes_buf(key_.data(), key_.size());
    }
    keyed_ = true;
  }
  unsigned char nonce[crypto_stream_chacha20_ietf_NONCEBYTES] = {};
  for (int i = 0; i < 8; ++i) nonce[i] = static_cast<unsigned char>(block_ >> (8 * i));
  ++block_;
  crypto_stream_chacha20_ietf(out, n, nonce, key_.data());
}

std::string IdClock::mint(std::string_view prefix) {
  unsigned char bytes[10];
  random(bytes, sizeof bytes);
  const auto now = static_cast<std::uint64_t>(now_ms());
  if (now > last_ms_) {
    last_ms_ = now;
    counter_ = static_cast<std::uint16_t>((bytes[8] | (bytes[9] << 8)) & 0x7FF); // leave headroom
  } else if (++counter_ > 0xFFF) {
    ++last_ms_;
    counter_ = 0;
  }
  unsigned char rand_b[8];
  for (int i = 0; i < 8; ++i) rand_b[i] = bytes[i];
  return std::string(prefix) + ids::uuid7_hex(last_ms_, counter_, rand_b);
}

} // namespace mur
