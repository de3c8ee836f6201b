// libFuzzer target: roster.yaml text through parse_roster. A bad roster is a mur::Failure (an
// E-ROS code); anything else escaping — a crash, another exception, a sanitizer report — is a bug.
#include "launcher/admission/roster.hpp"
#include "messages/vocabulary/failure.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)mur::parse_roster(std::string(reinterpret_cast<const char*>(data), size), "roster.yaml");
  } catch (const mur::Failure&) {
  }
  return 0;
}
