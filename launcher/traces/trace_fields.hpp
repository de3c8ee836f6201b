// trace_fields.hpp — reading one field of a trace event (a line read by read_trace_line,
// messages/vocabulary/trace_line.hpp) without trusting its type: a missing or mistyped field reads as "",
// false, [] or the fallback, never throws. Every reader of a trace event uses these, never
// nlohmann's value() or get<>() (which throw on a mistyped field).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mur::trace_fields {

inline std::string str(const nlohmann::json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::int64_t num(const nlohmann::json& e, const char* key, std::int64_t otherwise = 0) {
  auto it = e.find(key);
  if (it == e.end() || !it->is_number_integer()) return otherwise;
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return otherwise;
  return it->get<std::int64_t>();
}

// A count or a time as the readers print it: null when it is not known (negative: the trace
// did not say, or the thing still runs).
inline nlohmann::json known(std::int64_t n) { return n < 0 ? nlohmann::json(nullptr) : nlohmann::json(n); }

inline bool flag(const nlohmann::json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_boolean() && it->get<bool>();
}

// The strings of an array field (other elements left out).
inline std::vector<std::string> strs(const nlohmann::json& e, const char* key) {
  std::vector<std::string> out;
  auto it = e.find(key);
  if (it == e.end() || !it->is_array()) return out;
  for (const auto& s : *it)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

} // namespace mur::trace_fields
