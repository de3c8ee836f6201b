// failure.hpp — the one shape every refusal takes on its way to a user.
//
// Invariant: a refusal always carries its code (e.g. `E-ROS-008`), a message naming the file,
// key path or member at fault, and a `Fix:` hint. It never quotes a token or a secret.
// Rule: a refusal names its code and says what to fix (docs/spec/choices.md §Exit codes).
#pragma once

#include <stdexcept>
#include <string>

namespace mur {

class Failure : public std::runtime_error {
public:
  Failure(std::string code, std::string message, std::string fix)
    : std::runtime_error(message), code_(std::move(code)), fix_(std::move(fix)) {}

  const std::string& code() const noexcept { return code_; }
  std::string message() const { return what(); }
  const std::string& fix() const noexcept { return fix_; }

  // `error[E-ROS-004]: <message>` then `Fix: <hint>`, each on its own line.
  std::string render() const;

private:
  std::string code_;
  std::string fix_;
};

// Exit codes of docs/spec/choices.md §Exit codes.
enum ExitCode : int { exit_ok = 0, exit_refused = 1, exit_usage = 2 };

} // namespace mur
