// cmd_token.hpp — `mur token NAME (--session ses_… | --formation frm_… --member M)`: prints one
// credential's token of a running session, so an A2A client outside mur can call its door with
// exactly that credential's scopes.
//
// Invariant: the token comes from the session's running record (0600, live pid with the same
// start stamp) and is printed once, alone, on stdout — the one place mur prints a token, and
// only because it was asked to; it never reaches argv, the environment, stderr or a log. NAME is
// a credential the capsule declares under network.authentication.credentials, or `operator`
// (every scope). A target that does not run is E-TOK-001; a name the session does not hold is
// E-TOK-002, listing the ones it does.
// Rule: credentials usable by A2A clients outside mur (docs/spec/choices.md §A usable command
// line; docs/spec/door.md §Door tokens).
#pragma once

#include <string>

namespace mur {

struct TokenQuery {
  std::string credential;
  std::string session;   // ses_…
  std::string formation; // frm_… (with member)
  std::string member;
};

int cmd_token(const TokenQuery& q);

} // namespace mur
