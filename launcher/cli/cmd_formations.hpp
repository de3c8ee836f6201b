// cmd_formations.hpp — `mur formations rm [frm_…]… [--ended] [--older-than DUR]`: removes
// formation directories ($MURMUR_HOME/formations/<frm_id>/) a launch leaves behind.
//
// Invariant: a formation that runs is never removed — its launcher (running/<frm>.json or the
// marker's launcher pid with the same start stamp) is alive, or a member's running record is
// live; a directory that cannot be read as a formation's (no marker) counts as running. Only
// directories named frm_<32 hex> directly under formations/ are ever touched. A named id that
// runs is E-FRM-002, one that does not exist E-FRM-001 (the others named are still removed).
// --ended removes every formation that does not run; --older-than DUR those launched more than
// DUR ago (and ended).
// Rule: formation directories stay after their launch; retention and this command remove them
// (docs/spec/formation.md §Member directories, §Retention).
#pragma once

#include <string>
#include <vector>

namespace mur {

struct FormationsRemoval {
  std::vector<std::string> ids;
  bool ended = false;
  std::string older_than; // a duration; "" ⇒ none
};

int cmd_formations_rm(const FormationsRemoval& r);

} // namespace mur
