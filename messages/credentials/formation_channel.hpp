// formation_channel.hpp — the formation channel's names, limits and the line rule they share.
//
// Invariant: a channel line is at most FORMATION_CHANNEL_LINE_MAX bytes of valid UTF-8 (its `\n`
// and any trailing `\r` not counted). A refused line is described by a reason alone: the refusal
// never quotes the line, since the first line carries tokens.
// Rule: a member's channel is a pipe only it inherits, named by MURMUR_FORMATION_CHANNEL: its
// bundle first, its callees' doors in later lines (docs/spec/door.md §The formation channel).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mur {

inline constexpr const char* FORMATION_ID_ENV = "MURMUR_FORMATION_ID";
inline constexpr const char* FORMATION_CHANNEL_ENV = "MURMUR_FORMATION_CHANNEL";
inline constexpr const char* FORMATION_LIFELINE_ENV = "MURMUR_FORMATION_LIFELINE";

inline constexpr std::size_t FORMATION_CHANNEL_LINE_MAX = 1024 * 1024;
inline constexpr std::chrono::seconds FORMATION_CHANNEL_FIRST_LINE_DEADLINE{10};
inline constexpr std::chrono::seconds FORMATION_ADDRESS_WAIT{10};

// A channel line that was refused; what() is a reason that quotes nothing from the line.
class ChannelLineRefused : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Whether `bytes` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool is_utf8(std::string_view bytes);

// Why `line` (without its `\n`) cannot be a channel line, or nullopt if it can.
std::optional<std::string> channel_line_problem(std::string_view line);

} // namespace mur
