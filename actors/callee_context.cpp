// callee_context.cpp — the contextId a member's call carries to its callee (see callee_context.hpp).
#include "actors/callee_context.hpp"

#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/sha256.hpp"

namespace mur {

std::string callee_context(const std::string& caller_context, const std::string& callee) {
  // The two are framed (a NUL cannot be in a member name), so no split of bytes between them
  // gives the same id.
  std::string framed = caller_context;
  framed.push_back('\0');
  framed += callee;
  return std::string(ids::context) + sha256_hex(framed).substr(0, 32);
}

} // namespace mur
