// task_source.hpp — the one reading of `--task TEXT` / `--task @FILE`.
//
// Invariant: the command line is the only place that turns `@FILE` into text; everything after
// it (the launcher, the entry member, `mur run --capsule`'s session) carries the text itself, so
// a task is read once and a task whose text begins with `@` is never read again as a file name.
// A file that cannot be read is E-RUN-009; a task that is empty or only blanks — given as text or
// as a file — is refused before anything starts (E-CLI-003 / E-RUN-009), never served forever.
#pragma once

#include <cstddef>
#include <string>

namespace mur {

// The task's text for the argument of --task; `how` names the flag in the Fix of a refusal.
std::string task_from_argument(const std::string& arg, const std::string& how);

// The largest task read from a file or from stdin (far over the 1 MiB a door takes in a request).
inline constexpr std::size_t max_task_bytes = 16u << 20;

// The entry member's launch task, which its launcher writes to its stdin (never on argv, where
// any local user would read it): stdin read to its end, at most max_task_bytes (E-RUN-009).
std::string launch_task_from_stdin();

// A task given as text (`mur send`, --task TEXT) that is empty or only blanks: E-CLI-003.
void refuse_empty_task(const std::string& text, const std::string& how);

} // namespace mur
