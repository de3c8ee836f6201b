// program_env.hpp — what a program a capsule names (its agent program, its stdio tool servers)
// is handed: a minimal environment plus the variables the manifest declares, its arguments
// with the capsule's own files made absolute, and how its stderr is quoted.
//
// Invariant: the environment holds PATH, HOME, LANG, LC_ALL, TZ, USER and TMPDIR as the member
// has them, then the declared variables, and nothing else: no MURMUR_* variable, no formation
// token, no door URL, no API key the manifest did not name. A declared `${NAME}` is read from the
// member's environment once, when the program is set up; its value is a secret written out of
// every quote of the program's output. A missing one is a warning, never a failure.
// Rule: docs/spec/choices.md §Agent programs; docs/spec/choices.md §Tool servers.
#pragma once

#include "capsule/manifest.hpp"
#include "member/program_dir.hpp"
#include "messages/vocabulary/secret_redaction.hpp"
#include "os/harness_isolation.hpp"
#include "os/member_cgroup.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mur {

// Reads one environment variable (nullopt: unset).
using EnvRead = std::function<std::optional<std::string>(const std::string& name)>;

using EnvList = std::vector<std::pair<std::string, std::string>>;

// The declared variables with each `${NAME}` read through `env` (its value added to `secrets`);
// an unset one is empty, with `warning` (e.g. "W-HAR-001") and `key_path` ("inference.env") on stderr.
EnvList read_declared_env(const EnvList& declared, const EnvRead& env, SecretRedaction& secrets,
                          const std::string& warning, const std::string& key_path, const std::string& whom);

// `text` with each `${NAME}` in it read through `env` (its value added to `secrets`); an unset
// one is empty, with `warning` and `key_path` on stderr as above. For tools[].headers, whose
// values may hold a reference among other text ("Bearer ${KEY}").
std::string fill_env_refs(const std::string& text, const EnvRead& env, SecretRedaction& secrets,
                          const std::string& warning, const std::string& key_path, const std::string& whom);

// The whole environment of the program: the minimal one (with HOME=`home` and TMPDIR=`home`/tmp
// unless `home` is ""), then `declared`.
std::vector<std::string> program_env(const EnvList& declared, const std::string& home);

// command[1..] with every argument that names a regular file of the capsule folder made absolute.
std::vector<std::string> capsule_args(const std::vector<std::string>& command, const std::string& capsule_folder);

// The capsule's folder as an absolute path (its programs run in another directory).
std::string capsule_folder(const Manifest& m);

// Whether the capsule runs programs of its own (an agent program, a stdio tool server).
bool capsule_has_programs(const Manifest& m);

// What is hidden from a member working in `workdir` and from its programs: $MURMUR_HOME (every
// formation's member directories, the stores, the running records), and for a peer also
// <project>/.murmur (the entry's sessions, the project store).
std::vector<std::string> hidden_roots_for(const std::string& workdir, const EnvRead& env);

// The member's $TMPDIR when it is an absolute path (what it and its programs may write), else none.
std::vector<std::string> member_tmpdir(const EnvRead& env);

// Where a program of the capsule may reach: it runs beside its member's sessions, out of their
// reach, when the member's directory is one mur made (member/program_dir.hpp); every formation's
// member directories and the global store ($MURMUR_HOME) are hidden from it (Landlock), and for
// a peer the project's .murmur too (the entry's sessions, the project store: MURMUR_PROJECT_DIR);
// it may use its own directory and read its capsule.
IsolationPlan program_isolation(const Manifest& m, const std::string& workdir, const ProgramDir& pd,
                                const EnvRead& env);

// Where the capsule's programs (its agent program, its tool servers) run and what they may
// reach: worked out once per session, after the session's directory was made.
struct ProgramPlace {
  ProgramDir dir;
  IsolationPlan isolation;
  std::string home; // HOME of its programs: dir.home, or "" for the real one (capabilities.home: real)
  MemberCgroup limits;   // the member's group (member/member_limits.hpp)
  ResourceBounds bounds; // its capabilities.limits
};

// A stderr tail fit to quote: control characters but \n and \t shown as '?', trailing blanks cut,
// at most the last 800 bytes.
std::string clean_tail(const std::string& text);

} // namespace mur
