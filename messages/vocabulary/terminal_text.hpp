// terminal_text.hpp — text from a model, a program or a member, made safe to show on a terminal.
//
// Invariant: what terminal_safe returns holds no byte a terminal acts on besides a line break and
// a tab: every other C0 control (ESC above all, which starts the sequences that move the cursor,
// rewrite the title, or paste into the shell), DEL, the C1 controls as UTF-8 (U+0080–U+009F,
// CSI among them) and any byte that is not part of well-formed UTF-8 (a lone 0x9b is CSI to an
// 8-bit terminal) are written as visible escapes (`\x1b`, `\x7f`, `\u009b`, `\x9b`); well-formed
// UTF-8 and printable ASCII are kept as they are. `--json` output needs none of this: JSON
// escapes control characters itself.
// Threat: a model (or a program, or a forged trace line) that prints escape sequences must not
// reach the operator's terminal through `mur trace show`, `--follow`, `-v` or an error message.
#pragma once

#include <string>
#include <string_view>

namespace mur {

std::string terminal_safe(std::string_view text);

// terminal_safe(text) when `fd` is a terminal, else `text` as it is (an answer piped to a file
// keeps its bytes).
std::string terminal_safe_for(int fd, std::string_view text);

} // namespace mur
