#include "launcher/cli/command.hpp"

#include "launcher/base/cli_words.hpp"

#include <CLI/CLI.hpp>

namespace mur {

void refuse_in_mode(const CLI::Option* opt, const std::string& mode, const std::string& why, const std::string& help) {
  if (opt->count() == 0) return;
  const std::string name = "--" + opt->get_lnames().front(); // get_name() is "" for a hidden option
  throw UsageError("E-CLI-002", name + " does not apply to " + mode + ": " + why, "drop " + name + " (see " + help + ")");
}

void check_port(const CLI::Option* opt, int value, const std::string& flag) {
  if (opt->count() > 0 && (value < 1 || value > 65535))
    throw UsageError("E-CLI-003", flag + " " + std::to_string(value) + " is not a TCP port", "give a port from 1 to 65535");
}

} // namespace mur
