#include "messages/vocabulary/secret_redaction.hpp"

#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace mur {
namespace {

// A character that continues a word (or a key): a short secret touching one is part of a longer word.
bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("-_+/=~", c) != nullptr;
}

} // namespace

SecretRedaction::SecretRedaction(std::vector<std::string> secrets) {
  for (auto& s : secrets) add(std::move(s));
  for (auto& s : secrets)
    if (!s.empty()) sodium_memzero(s.data(), s.size());
}

SecretRedaction::SecretRedaction(const SecretRedaction& other) : secrets_(other.secrets_) {}

SecretRedaction& SecretRedaction::operator=(const SecretRedaction& other) {
  if (this != &other) {
    wipe();
    secrets_ = other.secrets_;
  }
  return *this;
}

SecretRedaction::SecretRedaction(SecretRedaction&& other) noexcept : secrets_(std::move(other.secrets_)) {
  other.secrets_.clear();
}

SecretRedaction& SecretRedaction::operator=(SecretRedaction&& other) noexcept {
  if (this != &other) {
    wipe();
    secrets_ = std::move(other.secrets_);
    other.secrets_.clear();
  }
  return *this;
}

SecretRedaction::~SecretRedaction() { wipe(); }

void SecretRedaction::wipe() noexcept {
  for (auto& s : secrets_)
    if (!s.empty()) sodium_memzero(s.data(), s.size());
  secrets_.clear();
}

void SecretRedaction::add(std::string secret) {
  if (secret.empty() || std::find(secrets_.begin(), secrets_.end(), secret) != secrets_.end()) {
    if (!secret.empty()) sodium_memzero(secret.data(), secret.size());
    return;
  }
  secrets_.push_back(std::move(secret));
  std::stable_sort(secrets_.begin(), secrets_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::size_t SecretRedaction::held_back(std::string_view text) const {
  std::size_t held = 0;
  for (const auto& s : secrets_)
    for (std::size_t k = std::min(s.size(), text.size()); k > held; --k)
      if (text.compare(text.size() - k, k, s, 0, k) == 0) {
        held = k;
        break;
      }
  return held;
}

std::string SecretRedaction::redact(const std::string& text) const {
  if (secrets_.empty() || text.empty()) return text;
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::string* hit = nullptr;
    for (const auto& s : secrets_) { // longest first: the first that fits is the longest
      if (s.size() > text.size() - i || text.compare(i, s.size(), s) != 0) continue;
      if (s.size() < short_secret) {
        const bool open_left = i == 0 || !word_char(text[i - 1]);
        const bool open_right = i + s.size() == text.size() || !word_char(text[i + s.size()]);
        if (!open_left || !open_right) continue;
      }
      hit = &s;
      break;
    }
    if (hit) {
      out += placeholder;
      i += hit->size();
    } else {
      out.push_back(text[i]);
      ++i;
    }
  }
  return out;
}

} // namespace mur
