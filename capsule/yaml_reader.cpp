#include "capsule/yaml_reader.hpp"

#include "messages/vocabulary/nearest_word.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

namespace mur::yaml {

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string Value::where() const {
  std::string w = origin_->file + ": " + (path_.empty() ? std::string("(top level)") : path_);
  if (!subject_.empty()) w += " " + subject_;
  return w;
}

void Value::fail(const std::string& problem, const std::string& fix) const {
  fail_with(origin_->code, problem, fix.empty() ? origin_->fix : fix);
}

void Value::fail_with(const std::string& code, const std::string& problem,
                      const std::string& fix) const {
  throw Failure(code, where() + ": " + problem, fix);
}

void Value::expect_map(std::initializer_list<const char*> allowed) const {
  if (!node_.IsMap()) fail("must be a mapping of keys to values");
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) fail("has a key that is not a plain name");
    const std::string key = kv.first.Scalar();
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) {
      std::string list;
      std::vector<std::string> words;
      for (const char* a : allowed) {
        list += (list.empty() ? "" : ", ") + std::string(a);
        words.emplace_back(a);
      }
      const std::string near = nearest_word(key, words);
      Value at(kv.second, child_path(path_, key), origin_, subject_);
      if (!near.empty())
        at.fail("is not a known key (did you mean `" + near + "`?)",
                "write `" + near + "` instead of `" + key + "`, or remove it; known keys here: " + list);
      at.fail("is not a known key", "remove it or correct its spelling; known keys here: " + list);
    }
    if (!seen.insert(key).second)
      Value(kv.second, child_path(path_, key), origin_, subject_)
        .fail("appears more than once", "keep one '" + key + "' key");
  }
}

std::optional<Value> Value::get(const char* key) const {
  if (!node_.IsMap()) return std::nullopt;
  YAML::Node child;
  for (const auto& kv : node_)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) { child = kv.second; break; }
  if (!child.IsDefined() || child.IsNull()) return std::nullopt;
  return Value(child, child_path(path_, key), origin_, subject_);
}

Value Value::require(const char* key) const {
  if (auto v = get(key)) return *v;
  Value(YAML::Node(), child_path(path_, key), origin_, subject_)
    .fail("is required", "add '" + std::string(key) + "'");
}

std::vector<Value> Value::items() const {
  if (!node_.IsSequence()) fail("must be a list");
  std::vector<Value> out;
  std::size_t i = 0;
  for (const auto& item : node_) out.emplace_back(item, index_path(path_, i++), origin_, subject_);
  return out;
}

std::vector<std::pair<std::string, Value>> Value::entries() const {
  if (!node_.IsMap()) fail("must be a mapping");
  std::vector<std::pair<std::string, Value>> out;
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) fail("has a key that is not a plain name");
    std::string key = kv.first.Scalar();
    Value v(kv.second, child_path(path_, key), origin_, subject_);
    if (!seen.insert(key).second) v.fail("appears more than once", "keep one '" + key + "' key");
    out.emplace_back(key, v);
  }
  return out;
}

std::string Value::text() const {
  if (!node_.IsScalar()) fail("must be a single value, not a list or mapping");
  return node_.Scalar();
}

std::string Value::string() const {
  if (is_null()) fail("must not be empty");
  return text();
}

bool Value::boolean() const {
  if (node_.IsScalar() && node_.Tag() == "?") {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  fail("must be true or false (unquoted)");
}

std::int64_t Value::integer(std::int64_t min, std::int64_t max) const {
  const std::string range = " between " + std::to_string(min) + " and " + std::to_string(max);
  if (!node_.IsScalar() || node_.Tag() != "?") fail("must be a whole number (unquoted)" + range);
  const std::string& s = node_.Scalar();
  std::size_t i = (s.size() > 1 && s[0] == '+') ? 1 : 0;
  if (i == s.size()) fail("must be a whole number" + range);
  bool negative = false;
  if (s[i] == '-') { negative = true; ++i; }
  if (i == s.size() || s.size() - i > 18) fail("must be a whole number" + range);
  std::int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') fail("must be a whole number" + range);
    v = v * 10 + (s[i] - '0');
  }
  if (negative) v = -v;
  if (v < min || v > max) fail("must be" + range);
  return v;
}

std::vector<std::string> Value::strings() const {
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.string());
  return out;
}

namespace {

// Counts documents without building them. yaml-cpp 0.7's LoadAll never ends on a text whose
// top level holds a stray ',' (e.g. ", a"): HandleNextDocument keeps answering an empty
// document (found by tests/fuzz/manifest_fuzz). So documents are counted here, at most two.
struct NoEvents : YAML::EventHandler {
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

int documents_up_to_two(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  NoEvents ignore;
  int docs = 0;
  while (docs < 2 && parser.HandleNextDocument(ignore)) ++docs;
  return docs;
}

} // namespace

YAML::Node load_text(const std::string& text, const Origin& origin) {
  const Value top(YAML::Node(), "", &origin);
  if (text.size() > max_file_bytes)
    top.fail("is larger than 1 MiB", "keep " + origin.file + " under 1 MiB");
  try {
    if (documents_up_to_two(text) > 1)
      top.fail("holds more than one YAML document", "keep a single document (remove '---' separators)");
    return YAML::Load(text);
  } catch (const Failure&) {
    throw;
  } catch (const YAML::Exception& e) {
    throw Failure(origin.code,
                  origin.file + ": line " + std::to_string(e.mark.line + 1) + ", column " +
                    std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg,
                  "correct the YAML syntax at that place");
  } catch (const std::exception& e) {
    throw Failure(origin.code, origin.file + ": could not be read as YAML: " + e.what(),
                  "correct the YAML syntax");
  }
}

std::string read_text_file(const std::string& file_path, const Origin& origin) {
  struct stat st {};
  if (::stat(file_path.c_str(), &st) != 0)
    throw Failure(origin.code, origin.file + ": cannot be read (" + std::strerror(errno) + ")",
                  origin.fix);
  if (S_ISDIR(st.st_mode))
    throw Failure(origin.code, origin.file + ": is a directory, not a file", origin.fix);
  if (static_cast<std::size_t>(st.st_size) > max_file_bytes)
    throw Failure(origin.code, origin.file + ": is larger than 1 MiB",
                  "keep " + origin.file + " under 1 MiB");
  std::ifstream in(file_path, std::ios::binary);
  if (!in) throw Failure(origin.code, origin.file + ": cannot be read", origin.fix);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (!in.good() && !in.eof()) throw Failure(origin.code, origin.file + ": cannot be read", origin.fix);
  return buf.str();
}

YAML::Node load_file(const std::string& file_path, const Origin& origin) {
  return load_text(read_text_file(file_path, origin), origin);
}

} // namespace mur::yaml
