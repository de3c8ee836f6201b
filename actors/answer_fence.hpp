// answer_fence.hpp — the fence that marks a member's answer as coming from that member.
//
// Invariant: a fence cannot be forged from inside. Its opening line names the source
// (`<untrusted-content source=member:NAME>`), its closing line is `</untrusted-content>`, and
// inside the content every sequence that would open or close a fence — `<untrusted-content`
// or `</untrusted-content`, in any ASCII letter case — is broken by a marker inserted after
// its `<`. The source holds no `>` and no line break, so it cannot end the opening line early.
// Rule: a callee's outcome returns into the calling task marked as that member's, with a mark
// nothing inside can forge (docs/spec/choices.md §Transcript;
// docs/spec/formation.md §How a member gives another work).
#pragma once

#include <string>
#include <string_view>

namespace mur {

inline constexpr std::string_view fence_tag = "untrusted-content";
inline constexpr std::string_view fence_marker = "!MUR-NEUTRALISED!";

// The source with every `>` removed and every CR or LF turned into a space.
std::string sanitise_fence_source(std::string_view source);

// The content with every fence opening or closing (ASCII case-insensitive) neutralised.
std::string neutralise_fences(std::string_view content);

// The fenced block: opening line, neutralised content (ending in a newline), closing line.
// `source` is the whole source name, e.g. "member:coder".
std::string fence(std::string_view source, std::string_view content);

} // namespace mur
