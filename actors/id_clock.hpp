// id_clock.hpp — the time of day and the fresh ids an actor uses, injected through its *Setup.
//
// Design: not a port actor but a small source each actor owns (an IdClock built from the
// IdClockSpec in its setup). Asking a clock actor for every id would put a message round trip
// on the door's hot path (every SendMessage mints a task id and a context id); an owned source
// costs nothing and shares nothing: no lock, no state between actors.
//   - real (the default spec): time of day from the wall clock; ids are UUIDv7 whose random bits
//     come from this instance's own ChaCha20 stream, keyed once from the OS CSPRNG the first
//     time it mints (task actors that never mint never pay for a key);
//   - simulated (`simulated = true`): time of day is `sim_epoch_ms` plus the owning actor's clock
//     (CAF's test clock: simulated time), and the stream's key is derived from `seed` and the
//     instance's stream name, so a simulation mints the same ids in the same order every run.
// Invariant: the ids one instance mints are strictly increasing (UUIDv7, RFC 9562 §6.2 method 1:
// within one millisecond rand_a counts up); each is prefix + 32 lowercase hex digits, so
// ids::is_valid and ids::minted_at_ms read them as before.
// Rule (docs/spec/choices.md §Determinism): actors take the time of day and fresh ids from a
// source injected through their setup; the simulation hands them a seeded, deterministic one.
#pragma once

#include <caf/actor_clock.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mur {

struct IdClockSpec {
  bool simulated = false;
  std::uint64_t seed = 0;
  std::int64_t sim_epoch_ms = 1'767'225'600'000; // simulated time zero reads as 2026-01-01T00:00:00Z
};

class IdClock {
public:
  // `clock` is the owning actor's clock (read only when simulated; it must outlive this object).
  // `stream` tells this instance's ids apart from other actors' under the same seed.
  IdClock(const IdClockSpec& spec, const caf::actor_clock& clock, std::string stream);

  // Unix ms now.
  std::int64_t now_ms() const;

  // prefix + a fresh UUIDv7, e.g. mint(ids::task).
  std::string mint(std::string_view prefix);

private:
  void random(unsigned char* out, std::size_t n);

  IdClockSpec spec_;
  const caf::actor_clock* clock_;
  std::string stream_;
  bool keyed_ = false;
  std::array<unsigned char, 32> key_{};
  std::uint64_t block_ = 0;   // ChaCha20 nonce: one block of the stream per call
  std::uint64_t last_ms_ = 0;
  std::uint16_t counter_ = 0;
};

} // namespace mur
