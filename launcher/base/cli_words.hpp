// cli_words.hpp — what `mur` says about a command line it cannot take: an unknown command or
// flag named with the nearest known one ("unknown command 'instal' — did you mean
// 'install'?"), and how every refusal is printed (text on stderr, or one JSON line under --json).
//
// Invariant: a usage error is a UsageError (exit 2) with its E-CLI code and a Fix; nothing a
// user typed is ever answered with CLI11's generic "A subcommand is required". Under --json a
// failure is exactly one line `{"error": {"code", "message", "fix"}}` on stdout and nothing on
// stderr — except in a formation member, whose launcher reads its stderr.
// Rule: the command line says what it means (docs/spec/choices.md §A usable command line).
#pragma once

#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/nearest_word.hpp"

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace mur {

// A refusal of the command line itself: exit 2.
class UsageError : public Failure {
public:
  using Failure::Failure;
};

// Walks argv over `app`'s subcommands and options; throws UsageError E-CLI-001 at the first
// command or flag it does not know. Values of options that take one are skipped.
void check_words(CLI::App& app, int argc, char** argv);

// `error[CODE]: message` + `Fix:` on `err`, or the JSON line on `out` when `json`.
void print_failure(const Failure& f, bool json, std::ostream& out, std::ostream& err);

// A duration flag's value (`--deadline`, `--timeout`: SECS or DUR, e.g. 90s, 10m): none when not
// given; E-CLI-003 when it is not a duration, or is 0 (`zero_why` says what 0 would do, `zero_fix`
// what to give instead).
std::optional<std::chrono::milliseconds> duration_flag(const std::string& flag, const std::string& text,
                                                       const std::string& zero_why, const std::string& zero_fix);

} // namespace mur
