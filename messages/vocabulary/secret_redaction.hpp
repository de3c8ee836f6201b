// secret_redaction.hpp — THE one rule by which a text that came from a model server, a tool server
// or an agent program is made safe before mur stores or prints it: every configured secret in it
// is replaced by "[redacted]".
//
// Invariant: `redact` returns its text with every occurrence of every secret replaced, scanning
// once from left to right and taking the longest secret that starts at each place (so a secret
// that contains another is replaced whole). A secret of `short_secret` (8) bytes or more is
// replaced wherever it occurs. A shorter one (an `env` value like `1` or `en`, never a real key)
// is replaced wherever it stands as a word of its own — not touching a letter, a digit or one of
// `-_+/=~` on either side — so a program's `DEBUG: ${DEBUG}` does not turn every `1` inside a
// number into [redacted]; where it is part of a longer word it is not shown as itself. Empty
// secrets are ignored. The secrets are held only here, are never printed, and are zeroed when the
// rule is dropped. Callers redact BEFORE cutting a text short, so no cut can leave part of a key.
// Who adds what: the model's `api_key` (member/model_start.cpp), the `${ENV}` values of an agent
// program's `inference.env`; tool `headers` join the same list when they exist.
// Rule: one redaction rule is applied to every text that leaves a model or tool server before
// mur stores or prints it (docs/errors.md, "the redaction rule").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mur {

class SecretRedaction {
public:
  static constexpr std::size_t short_secret = 8;
  static constexpr const char* placeholder = "[redacted]";

  SecretRedaction() = default;
  explicit SecretRedaction(std::vector<std::string> secrets);
  SecretRedaction(const SecretRedaction& other);
  SecretRedaction& operator=(const SecretRedaction& other);
  SecretRedaction(SecretRedaction&& other) noexcept;
  SecretRedaction& operator=(SecretRedaction&& other) noexcept;
  ~SecretRedaction();

  // Adds one secret (ignored when empty or already held).
  void add(std::string secret);
  bool empty() const { return secrets_.empty(); }
  std::size_t size() const { return secrets_.size(); }

  // The text with every secret replaced by "[redacted]".
  std::string redact(const std::string& text) const;

  // For a text that arrives in pieces: how many bytes at the end of `text` to hold back until
  // more arrives — the longest end that is the start of some secret (a whole secret included,
  // whose word boundary the next byte decides). Redacting the rest and holding these back
  // lets no secret split across two pieces pass unredacted.
  std::size_t held_back(std::string_view text) const;

private:
  void wipe() noexcept;
  std::vector<std::string> secrets_; // longest first
};

} // namespace mur
