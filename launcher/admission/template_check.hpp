// template_check.hpp — the placeholders a script model's templates may name, checked before a
// capsule is installed or a roster admitted by `mur doctor`.
//
// Invariant: every `{{…}}` in a script turn's call task, reply, end-without-answer reason or
// failure text is one the script model fills ({{task}}, {{member}}, {{answer.NAME}},
// {{answers}}, {{tool_results}}, {{history}}, {{history_count}}; capsule/script_model.cpp); any other is refused with E-MAN-004 naming its key
// path and listing the known ones — so a misspelt `{{tsak}}` is never sent as written.
// Rule (docs/spec/choices.md §Script model): template placeholders are checked at install and
// by doctor.
#pragma once

#include <string>

namespace mur {

struct Manifest;

inline constexpr const char* template_code = "E-MAN-004";
inline constexpr const char* known_placeholders =
  "{{task}}, {{member}}, {{answer.NAME}}, {{answers}}, {{tool_results}}, {{history}}, {{history_count}}";

// Throws Failure E-MAN-004 at the first unknown placeholder; `label` names the manifest file.
void check_templates(const Manifest& m, const std::string& label);

} // namespace mur
