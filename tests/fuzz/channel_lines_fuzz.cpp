// libFuzzer target: the formation channel's two lines (the credential bundle and the address
// line) and the line check both go through. A refused line is a ChannelLineRefused; anything
// else escaping is a bug.
#include "messages/credentials/address_line.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/credentials/formation_channel.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  (void)mur::channel_line_problem(line);
  try {
    auto bundle = mur::parse_bundle(line);
    (void)mur::render_bundle(bundle);
  } catch (const mur::ChannelLineRefused&) {
  }
  try {
    (void)mur::render_address_line(mur::parse_address_line(line));
  } catch (const mur::ChannelLineRefused&) {
  }
  return 0;
}
