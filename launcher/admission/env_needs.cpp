// env_needs.cpp — see env_needs.hpp.
#include "launcher/admission/env_needs.hpp"

#include "messages/vocabulary/model_endpoint.hpp"

#include <variant>
#include <vector>

namespace mur {

std::set<std::string> env_read_by(const Manifest& m) {
  std::set<std::string> names;
  auto add_refs = [&](const std::string& text) {
    if (auto refs = env_references(text))
      for (const auto& r : *refs) names.insert(r.name);
  };
  if (!m.inference.api_key_env.empty()) names.insert(m.inference.api_key_env);
  for (const auto& [name, value] : m.inference.env) add_refs(value);
  for (const auto& t : m.tools) {
    for (const auto& [name, value] : t.env) add_refs(value);
    for (const auto& [name, value] : t.headers) add_refs(value);
  }
  return names;
}

std::set<std::string> env_needed(const Manifest& m, const StoreRoots& stores) {
  std::set<std::string> names = env_read_by(m);
  std::set<std::string> seen{m.name + "@" + m.version};
  std::vector<CapsuleRef> todo(m.spawn_allow.begin(), m.spawn_allow.end());
  while (!todo.empty()) {
    const CapsuleRef ref = todo.back();
    todo.pop_back();
    if (!seen.insert(ref.name + "@" + ref.version).second) continue;
    auto resolved = resolve_capsule(stores, ref.name, ref.version);
    const auto* r = std::get_if<ResolvedCapsule>(&resolved);
    if (r == nullptr) continue;
    for (const auto& n : env_read_by(r->manifest)) names.insert(n);
    todo.insert(todo.end(), r->manifest.spawn_allow.begin(), r->manifest.spawn_allow.end());
  }
  return names;
}

} // namespace mur
