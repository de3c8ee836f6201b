// sodium_ready.hpp — libsodium is initialised before any key, random byte or compare is used.
//
// Invariant: every function in messages/ that touches libsodium calls `ensure_sodium()` first;
// a libsodium that cannot initialise is a fatal error, never a weaker fallback.
// Rule: the launcher draws one Ed25519 key pair per formation
// (docs/spec/door.md §Formation tokens).
#pragma once

namespace mur {

// Initialises libsodium once per process (thread-safe); throws std::runtime_error if it cannot.
void ensure_sodium();

} // namespace mur
