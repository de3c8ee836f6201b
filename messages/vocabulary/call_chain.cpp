// call_chain.cpp — see call_chain.hpp.
#include "messages/vocabulary/call_chain.hpp"

#include <algorithm>

namespace mur {

ChainVerdict judge_call(const ChainRule& rule, const std::vector<std::string>& above, const std::string& self,
                        const std::string& callee) {
  const bool on_chain = callee == self || std::find(above.begin(), above.end(), callee) != above.end();
  if (on_chain && !rule.allow_cycles) return ChainVerdict::cycle;
  // The callee's task would sit at depth above.size() + 1.
  const int depth = static_cast<int>(above.size()) + 1;
  if (depth > rule.max_depth || depth > max_chain_length) return ChainVerdict::depth;
  return ChainVerdict::ok;
}

std::vector<std::string> chain_below(std::vector<std::string> above, const std::string& self) {
  above.push_back(self);
  return above;
}

std::string chain_words(const std::vector<std::string>& chain, const std::string& callee) {
  std::string out;
  for (const auto& m : chain) out += m + " \u2192 ";
  return out + callee;
}

} // namespace mur
