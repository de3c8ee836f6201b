// terminal_question.hpp — asks the person at this process's controlling terminal for one line.
//
// Invariant: never blocks its caller. When the process has a controlling terminal (/dev/tty
// opens) and is in its foreground process group (a background reader would be stopped), one
// reader thread at a time writes the prompt there and reads one line, handed to
// `on_line` on that thread; without one, nothing is read and the call says so (false). A line
// is at most 64 KiB (the rest of a longer one is dropped); end of input reads nothing.
// Rule: the operator answers a question on the terminal when mur run --task runs interactively
// (docs/ask-operator.md).
#pragma once

#include <functional>
#include <string>

namespace mur {

// False when there is no terminal to ask at; true when a reader waits for the line (this one, or
// one started before that has not been answered yet).
bool ask_at_terminal(const std::string& prompt, std::function<void(std::string line)> on_line);

} // namespace mur
