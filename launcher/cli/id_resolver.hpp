// id_resolver.hpp — the id a command-line argument names: a whole id, a unique prefix of one
// (`frm_01a2…`, or its hex alone, `01a2…`), or `last`, the newest formation or session.
//
// Invariant: every command that takes a formation, session or task id on its command line
// (send, cancel, answer, stop, trace show, view, token, formations rm) resolves it here, before
// the command runs, among the ids it could mean (running ones, or those with a trace); a whole
// id and anything that is no id (a URL) are passed on unchanged, for the command's own checks.
// A prefix matching one id is that id; one matching several is E-ID-001, listing them; one
// matching none, and `last` when there is nothing, is E-ID-002. `last` is the newest by mint
// time (ids are UUIDv7): of formations and of sessions outside a formation when the argument
// takes formations, of every session when it takes sessions only. Case does not matter.
// Rule: unique prefixes of frm_/ses_/tsk_ ids are taken wherever an id is, `last` names the
// newest formation or session, and an ambiguous prefix lists the matches
// (docs/spec/choices.md §Command line, "Ids on the command line").
#pragma once

#include <string>
#include <vector>

namespace mur {

// The kinds of id an argument takes.
struct IdKinds {
  bool formation = false, session = false, task = false;
};

// What a typed word is matched against.
struct KnownIds {
  std::vector<std::string> ids;   // every whole id the argument could name
  std::vector<std::string> lasts; // the ids `last` chooses among (the newest wins)
};

struct IdMatch {
  enum class Kind { passed, found, none, ambiguous };
  Kind kind = Kind::passed;
  std::string id;                   // found: the whole id; passed: the word as typed
  std::vector<std::string> matches; // ambiguous: every id it matches, sorted
};

// The match of `typed` among `known` (pure: no file or door is read).
IdMatch match_id(const std::string& typed, IdKinds kinds, const KnownIds& known);

// Where the ids an argument could mean are looked for.
enum class IdScope {
  running, // formations whose launcher runs, sessions that run, the tasks their doors hold
  traced,  // also those that have ended but left a trace or a formation directory
};

// The whole id `typed` names (or `typed` itself when it is no partial id nor `last`); E-ID-001
// for a prefix that names several, E-ID-002 for one that names none.
std::string resolve_id(const std::string& typed, IdKinds kinds, IdScope scope);

} // namespace mur
