#include "messages/vocabulary/failure.hpp"

namespace mur {

std::string Failure::render() const {
  std::string out = "error[" + code_ + "]: " + what() + "\n";
  if (!fix_.empty()) out += "Fix: " + fix_ + "\n";
  return out;
}

} // namespace mur
