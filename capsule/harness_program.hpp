// harness_program.hpp — which file a `transport: process` member's turn executes.
//
// Invariant: the program is `inference.command[0]` resolved once, the same way everywhere:
// - absolute (`/usr/bin/python3`): that file;
// - with a '/' (`./bin/agent`, `bin/agent`): the file inside the installed capsule folder (no
//   `..` part; load_manifest_dir has checked it exists there and is executable);
// - a bare name (`agent.py`, `python3`): the capsule folder's file of that name when there is
//   one, else the first executable regular file of that name on PATH (empty and relative PATH
//   entries are skipped: never the member's working directory).
// The result is an absolute path to an executable regular file, or a Failure E-HAR-001 with a
// Fix; the program's arguments (command[1..]) are passed as they are.
// Rule (docs/spec/choices.md §Agent programs): a relative program path resolves inside the
// installed capsule, never in the member's working directory.
#pragma once

#include "capsule/manifest.hpp"

#include <string>

namespace mur {

// `path_env`: the PATH to search (the launcher's own PATH when not given).
std::string resolve_harness_program(const Manifest& manifest, const std::string& capsule_folder);
std::string resolve_harness_program(const Manifest& manifest, const std::string& capsule_folder,
                                    const std::string& path_env);
// The same rule for any command of the capsule (a tool server's `command[0]`): `what` names it
// in the refusal ("coder: tools[0].command[0]"), which carries `code`.
std::string resolve_program(const std::string& program, const std::string& what, const std::string& code,
                            const std::string& capsule_folder, const std::string& path_env);

} // namespace mur
