// cli.hpp — the `mur` command line (docs/spec/choices.md §Command line), parsed with CLI11.
//
// Invariant: every command of docs/spec/choices.md §Command line exists with --help (and
// `mur help [COMMAND]`);
// usage lines say `mur`; exit codes are 0 success, 1 a refusal (its code and a Fix: line on
// stderr), 2 a usage error (E-CLI-001 an unknown command or flag, with the nearest known one;
// E-CLI-002 a flag that does not apply to the chosen mode, with why; E-CLI-003 a missing or
// wrong argument, an empty task, --deadline 0). Under --json every failure is one JSON line on
// stdout (launcher/base/cli_words.hpp). No input makes `mur` end with an uncaught exception or a
// stack trace.
#pragma once

namespace mur {

int run_cli(int argc, char** argv);

} // namespace mur
