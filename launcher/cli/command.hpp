// command.hpp — one command of `mur` as the dispatcher sees it: the CLI11 subcommand that names
// it, and what runs when argv chose it.
//
// Invariant: a command's options are bound to state the command owns (kept alive by `run`), so
// no two commands share a variable; `run` is called only after CLI11 parsed argv without error,
// and it checks what CLI11 cannot (a port range, a flag that does not apply to a mode) before it
// does anything.
#pragma once

#include <functional>
#include <string>

namespace CLI {
class App;
class Option;
}

namespace mur {

struct Command {
  CLI::App* chosen = nullptr;  // the subcommand; `*chosen` is true when argv named it
  std::function<int()> run;
};

// A flag given in a mode it does not apply to: E-CLI-002 naming the flag and why.
void refuse_in_mode(const CLI::Option* opt, const std::string& mode, const std::string& why,
                    const std::string& help = "mur run --help");

// `value` of `flag` (given when `opt` was counted) is a TCP port, or E-CLI-003.
void check_port(const CLI::Option* opt, int value, const std::string& flag);

} // namespace mur
