// manifest_refusal.hpp — the refusal a murmur.yaml text gets, for the manifest's tests.
#pragma once

#include "capsule/manifest.hpp"
#include "refusal_of.hpp"

#include <string>

namespace mur::test {

inline Failure manifest_refusal(const std::string& text) {
  return refusal_of([](const std::string& t) { parse_manifest(t, "murmur.yaml"); }, text, "manifest");
}

// The text is refused with `code`, a message containing `fragment`, and a Fix.
inline void manifest_refused(const std::string& text, const std::string& code, const std::string& fragment) {
  check_refusal(manifest_refusal(text), text, code, fragment);
}

} // namespace mur::test
