// run_command_line.hpp — `mur run`'s command line: its two modes (--roster, or one capsule
// session with --capsule / --manifest), the flags each refuses, and the values parsed once.
//
// Invariant: a flag that does not apply to the chosen mode is refused (E-CLI-002) before
// anything starts; the task is read once (an @FILE included) and carried as text; --deadline is
// parsed once into milliseconds and 0 is refused; ports are 1–65535 (E-CLI-003).
// Rule: the command line says what it means (docs/spec/choices.md §A usable command line).
#pragma once

#include "launcher/cli/command.hpp"

namespace mur {

Command declare_run(CLI::App& app);

} // namespace mur
