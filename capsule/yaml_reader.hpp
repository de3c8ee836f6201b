// yaml_reader.hpp — strict, path-tracking reading of the YAML files users write
// (`murmur.yaml`, `roster.yaml`).
//
// Invariant: every refusal names the file, the key path at fault (`members[1].version`) and,
// when known, the member it belongs to, and carries the caller's code and a Fix hint. Unknown
// keys and repeated keys are refused, never ignored (an unknown key close to a known one names
// it: "did you mean `model`?", messages/vocabulary/nearest_word.hpp); a key whose value is null counts as absent;
// a value of the wrong YAML type is refused rather than converted (the string "1" is not the
// number 1, "true" is not a boolean). No input makes it crash: every yaml-cpp exception is
// turned into a Failure at the point of loading.
#pragma once

#include "messages/vocabulary/failure.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace mur::yaml {

// What every refusal from one file shares.
struct Origin {
  std::string file;   // shown first in every message, e.g. "roster.yaml"
  std::string code;   // e.g. "E-ROS-001"
  std::string fix;    // default Fix hint when a check gives none
};

// The largest file we parse; larger is refused before parsing.
inline constexpr std::size_t max_file_bytes = 1 << 20;

class Value {
public:
  Value(YAML::Node node, std::string path, const Origin* origin, std::string subject = {})
    : node_(std::move(node)), path_(std::move(path)), origin_(origin), subject_(std::move(subject)) {}

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_seq() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }

  // "(member 'coder')" is appended to the path in messages from here on.
  Value about(std::string subject) const { return Value(node_, path_, origin_, std::move(subject)); }

  [[noreturn]] void fail(const std::string& problem, const std::string& fix = {}) const;
  [[noreturn]] void fail_with(const std::string& code, const std::string& problem,
                              const std::string& fix) const;

  // Requires a mapping whose keys are all in `allowed`, each at most once.
  void expect_map(std::initializer_list<const char*> allowed) const;
  // The value under `key`; nullopt when absent or null.
  std::optional<Value> get(const char* key) const;
  // As get(), but absence is refused with "is required".
  Value require(const char* key) const;

  std::vector<Value> items() const;         // requires a sequence
  std::vector<std::pair<std::string, Value>> entries() const;  // requires a map (keys as text)

  std::string text() const;                 // any scalar, as written (numbers/bools kept)
  std::string string() const;               // a scalar that is not a YAML null
  bool boolean() const;                     // a real boolean: true/false, unquoted
  std::int64_t integer(std::int64_t min, std::int64_t max) const;  // unquoted decimal integer
  std::vector<std::string> strings() const; // a sequence of scalars

private:
  std::string where() const;
  YAML::Node node_;
  std::string path_;
  const Origin* origin_;
  std::string subject_;
};

// Reads and parses `file_path`. A missing/unreadable file, an oversized file, YAML syntax
// errors and several documents in one file are refused under origin.code.
std::string read_text_file(const std::string& file_path, const Origin& origin);
YAML::Node load_file(const std::string& file_path, const Origin& origin);
YAML::Node load_text(const std::string& text, const Origin& origin);

std::string child_path(const std::string& parent, const std::string& key);
std::string index_path(const std::string& parent, std::size_t index);

} // namespace mur::yaml
