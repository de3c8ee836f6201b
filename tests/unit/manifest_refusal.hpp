// manifest_refusal.hpp — the refusal a murmur.yaml text gets, for the manifest's tests, and the
// check of a table of texts that are refused alike.
#pragma once

#include "capsule/manifest.hpp"
#include "refusal_of.hpp"

#include <functional>
#include <string>
#include <vector>

namespace mur::test {

inline Failure manifest_refusal(const std::string& text) {
  return refusal_of([](const std::string& t) { parse_manifest(t, "murmur.yaml"); }, text, "manifest");
}

// The text is refused with `code`, a message containing `fragment`, and a Fix.
inline void manifest_refused(const std::string& text, const std::string& code, const std::string& fragment) {
  check_refusal(manifest_refusal(text), text, code, fragment);
}

// One row of a table of refusals: the case's text, and what the refusal's message holds.
struct RefusalCase {
  std::string text, fragment;
};

// Every case's text, made into a manifest by `make`, is refused with `code`, its fragment and a Fix.
inline void manifest_refused_each(const std::string& code, const std::function<std::string(const std::string&)>& make,
                                  const std::vector<RefusalCase>& cases) {
  for (const auto& [text, fragment] : cases) manifest_refused(make(text), code, fragment);
}

// Every case's text, as it stands, is refused with `code`, its fragment and a Fix.
inline void manifest_refused_each(const std::string& code, const std::vector<RefusalCase>& cases) {
  manifest_refused_each(code, [](const std::string& text) { return text; }, cases);
}

} // namespace mur::test
