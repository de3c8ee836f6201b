// trace_fields.hpp — reading one field of a trace event (a parsed trace.jsonl line) without
// trusting its type: a missing or mistyped field reads as "" or the fallback, never throws.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mur::trace_fields {

inline std::string str(const nlohmann::json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::int64_t num(const nlohmann::json& e, const char* key, std::int64_t otherwise = 0) {
  auto it = e.find(key);
  return it != e.end() && it->is_number_integer() ? it->get<std::int64_t>() : otherwise;
}

} // namespace mur::trace_fields
