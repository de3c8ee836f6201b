// secret_text.hpp — a bearer secret (a formation or door token) that cannot be printed by accident.
//
// Invariant: the text is reachable only through `expose()`. There is no stream operator, no
// conversion to std::string or std::string_view, no nlohmann to_json/from_json: each is deleted
// so a token put into a log line, an error message or a JSON value fails to compile
// (tests/unit/secret_text_test.cpp proves it with type traits). Its bytes are zeroed on drop.
// Rule: a token cannot be printed or serialised; expose() alone reads it
// (docs/spec/door.md §Formation tokens).
#pragma once

#include <iosfwd>
#include <string>
#include <utility>

#include <nlohmann/json_fwd.hpp>
#include <sodium.h>

namespace mur {

template <class Tag>
class SecretText {
public:
  // Wraps text already known to be this kind of secret (minted, or read from the channel).
  static SecretText adopt(std::string text) { return SecretText(std::move(text)); }

  SecretText(const SecretText&) = default;
  SecretText& operator=(const SecretText& other) {
    if (this != &other) {
      wipe();
      text_ = other.text_;
    }
    return *this;
  }
  SecretText(SecretText&& other) noexcept : text_(std::move(other.text_)) { other.wipe(); }
  SecretText& operator=(SecretText&& other) noexcept {
    if (this != &other) {
      wipe();
      text_ = std::move(other.text_);
      other.wipe();
    }
    return *this;
  }
  ~SecretText() { wipe(); }

  // The one way to read the secret: to put it into an Authorization header or a channel line.
  const std::string& expose() const noexcept { return text_; }

private:
  explicit SecretText(std::string text) : text_(std::move(text)) {}
  void wipe() noexcept {
    if (!text_.empty()) sodium_memzero(text_.data(), text_.size());
    text_.clear();
  }

  std::string text_;
};

// Printing or serialising a secret must not compile.
template <class Tag>
std::ostream& operator<<(std::ostream&, const SecretText<Tag>&) = delete;
template <class Tag>
void to_json(nlohmann::json&, const SecretText<Tag>&) = delete;
template <class Tag>
void to_json(nlohmann::ordered_json&, const SecretText<Tag>&) = delete;
template <class Tag>
void from_json(const nlohmann::json&, SecretText<Tag>&) = delete;
template <class Tag>
void from_json(const nlohmann::ordered_json&, SecretText<Tag>&) = delete;

} // namespace mur
