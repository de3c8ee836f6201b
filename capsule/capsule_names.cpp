#include "capsule/capsule_names.hpp"

#include <algorithm>
#include <cctype>

namespace mur::names {
namespace {
bool lower_digit_dash(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }
}

std::optional<std::string> capsule_name_problem(std::string_view name) {
  if (name.empty()) return std::string("is empty");
  if (name.size() > 100) return std::string("is longer than 100 characters");
  if (!std::all_of(name.begin(), name.end(), lower_digit_dash))
    return std::string("may hold only lowercase letters, digits and '-'");
  if (name.front() == '-' || name.back() == '-') return std::string("may not start or end with '-'");
  return std::nullopt;
}

std::optional<std::string> version_problem(std::string_view version) {
  std::string trimmed(version);
  trimmed.erase(0, trimmed.find_first_not_of(" \t"));
  if (trimmed.empty()) return std::string("is blank");
  std::string lower;
  for (char c : version) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "latest" || lower == "stable" || lower == "edge")
    return "is a floating tag ('" + std::string(version) + "'), not an exact version";
  if (version.size() > 64) return std::string("is longer than 64 characters");
  for (char c : version)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-'))
      return std::string("may hold only letters, digits and . _ + -");
  if (version.front() == '.') return std::string("may not start with '.'");
  return std::nullopt;
}

std::optional<std::string> member_name_problem(std::string_view name) {
  if (name.empty()) return std::string("is empty");
  if (name.size() > 32) return std::string("is longer than 32 characters");
  if (!(name.front() >= 'a' && name.front() <= 'z')) return std::string("must start with a lowercase letter");
  if (!std::all_of(name.begin(), name.end(), lower_digit_dash))
    return std::string("may hold only lowercase letters, digits and '-'");
  return std::nullopt;
}

} // namespace mur::names
