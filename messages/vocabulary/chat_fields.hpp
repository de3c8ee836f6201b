// chat_fields.hpp — the Chat Completions request-body fields mur sets itself.
//
// Invariant: `inference.params` never overrides one of these: the manifest refuses them
// (capsule/http_inference.cpp) and the codec skips them (http/chat_completions.cpp), so both
// read this one list.
#pragma once

#include <string>
#include <vector>

namespace mur {

inline const std::vector<std::string>& chat_fields_set_by_mur() {
  static const std::vector<std::string> fields{"model", "messages", "tools", "tool_choice", "stream",
                                               "stream_options"};
  return fields;
}

} // namespace mur
