// address_line.hpp — the channel's later lines: where each callee's door answers.
//
// Invariant: an address line is {"addresses":[{"name":"<member>","url":"http://host:port"}]};
// names are member names, each at most once; every url is exactly `http://host:port` (host of
// `[A-Za-z0-9.-]` or a bracketed IP, port 1–65535, nothing after it). An entry
// {"name":"<member>","ended":true} says that member ended as its lifecycle says; it reads as a
// MemberAddress with an empty url; an entry {"name":"<member>","restarting":true} says that member
// died and is being started again (roster `restart:`): its old door is gone and calls to it wait
// for the next address line; it reads as a MemberAddress whose url is `restarting_url`. A refusal
// gives a reason and never quotes the line.
// Rule: an address line maps callee names to urls of exactly http://host:port; a refusal gives
// its reason, never the line (docs/spec/door.md §The formation channel).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mur {

// The url of a member being restarted (never a door url: it has no scheme).
inline constexpr const char* restarting_url = "restarting";

struct MemberAddress {
  std::string name;
  std::string url; // "" ⇒ the member has ended; restarting_url ⇒ it is being restarted
};

// Whether `url` is exactly `http://host:port` or `https://host:port` (a door on another host).
bool is_door_url(std::string_view url);

// The line, without its `\n`.
std::string render_address_line(const std::vector<MemberAddress>& addresses);

// Throws ChannelLineRefused (formation_channel.hpp) with a reason that quotes nothing.
std::vector<MemberAddress> parse_address_line(std::string_view line);

} // namespace mur
