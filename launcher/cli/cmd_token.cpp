#include "launcher/cli/cmd_token.hpp"

#include "launcher/base/cli_words.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"

#include <iostream>
#include <optional>

namespace mur {
namespace {

RunningRecord find_session(const TokenQuery& q) {
  if (!q.session.empty()) {
    if (!ids::is_valid(q.session, ids::session))
      throw Failure("E-TOK-001", "'" + q.session + "' is not a session id (ses_…)", "copy the id from mur ps");
    auto rec = read_running_record(q.session);
    if (!rec || !record_is_live(*rec))
      throw Failure("E-TOK-001", "no running session " + q.session, "list running sessions with mur ps");
    return *rec;
  }
  if (!ids::is_valid(q.formation, ids::formation))
    throw Failure("E-TOK-001", "'" + q.formation + "' is not a formation id (frm_…)", "copy the id from mur ps");
  for (auto& rec : list_running_records())
    if (rec.formation_id == q.formation && rec.formation_member == q.member && record_is_live(rec)) return rec;
  throw Failure("E-TOK-001", "no member '" + q.member + "' of formation " + q.formation + " is running",
                "list running formations and their members with mur ps");
}

// The one place a token reaches stdout: `mur token` exists to hand the operator a credential
// for an external A2A client (docs/spec/choices.md §A usable command line); nothing else
// prints one.
int print_token(const DoorToken& token) {
  std::cout << token.expose() << "\n";
  return exit_ok;
}

} // namespace

int cmd_token(const TokenQuery& q) {
  const bool by_session = !q.session.empty();
  const bool by_member = !q.formation.empty() || !q.member.empty();
  if (by_session == by_member || (by_member && (q.formation.empty() || q.member.empty())))
    throw UsageError("E-CLI-003", "mur token needs the session: --session ses_…, or --formation frm_… --member NAME",
                     "e.g. mur token ci --session ses_… (the ids are in mur ps)");
  const RunningRecord rec = find_session(q);
  const std::string whose = by_session ? "session " + q.session : "member '" + q.member + "' of " + q.formation;
  if (!rec.operator_token)
    throw Failure("E-TOK-002", whose + " has a public door: it takes no credential",
                  "call it without one, or declare network.authentication in its capsule's murmur.yaml");
  if (q.credential == "operator") {
    return print_token(*rec.operator_token);
  }
  std::string names = "operator";
  for (const auto& [name, token] : rec.credential_tokens) {
    if (name == q.credential) {
      return print_token(token);
    }
    names += ", " + name;
  }
  throw Failure("E-TOK-002", whose + " holds no credential '" + q.credential + "' (it holds: " + names + ")",
                "name one of its credentials, or declare it under network.authentication.credentials and start it again");
}

} // namespace mur
