#include "messages/credentials/sodium_ready.hpp"

#include <sodium.h>

#include <stdexcept>

namespace mur {

void ensure_sodium() {
  static const bool ready = [] {
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
    return true;
  }();
  (void)ready;
}

} // namespace mur
