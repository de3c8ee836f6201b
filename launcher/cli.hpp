// cli.hpp — the `mur` command line (decisions.md §4), parsed with CLI11.
//
// Invariant: every command of decisions.md §4 exists with --help; exit codes are 0 success,
// 1 a refusal (its code and a Fix: line on stderr), 2 a usage error. No input makes `mur`
// end with an uncaught exception or a stack trace.
#pragma once

namespace mur {

int run_cli(int argc, char** argv);

} // namespace mur
