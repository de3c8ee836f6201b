// lead_bundle.hpp — the formation bundle of a member `lead` that may call exactly `coder`, minted
// by a test's own authority: what a launcher would hand lead's egress.
#pragma once

#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_bundle.hpp"

#include <memory>

namespace mur::sim {

inline std::shared_ptr<FormationBundle> lead_to_coder_bundle(FormationAuthority& authority) {
  auto bundle = std::make_shared<FormationBundle>();
  bundle->formation_id = authority.formation_id();
  bundle->member = "lead";
  bundle->verify_key = authority.verify_key();
  bundle->calls.push_back(FormationCall{"coder", authority.mint("lead", "coder")});
  return bundle;
}

} // namespace mur::sim
