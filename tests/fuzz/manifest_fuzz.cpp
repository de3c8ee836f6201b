// libFuzzer target: murmur.yaml text through parse_manifest. A bad manifest is a mur::Failure
// (an E-MAN code); anything else escaping — a crash, another exception, a sanitizer report — is a bug.
#include "capsule/manifest.hpp"
#include "messages/vocabulary/failure.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)mur::parse_manifest(std::string(reinterpret_cast<const char*>(data), size), "murmur.yaml");
  } catch (const mur::Failure&) {
  }
  return 0;
}
