#include "messages/vocabulary/base64url.hpp"

#include <sodium.h>

namespace mur::b64url {

namespace {
constexpr int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
}

std::string encode(const unsigned char* p, std::size_t n) {
  std::string out(sodium_base64_encoded_len(n, variant), '\0');
  sodium_bin2base64(out.data(), out.size(), p, n, variant);
  out.resize(out.size() - 1); // encoded_len counts the trailing NUL
  return out;
}

std::string encode(std::string_view bytes) {
  return encode(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

std::optional<std::string> decode(std::string_view text) {
  if (text.empty()) return std::string();
  // A length of 1 mod 4 never encodes whole bytes.
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out(text.size() / 4 * 3 + 3, '\0');
  std::size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), /*ignore*/ nullptr, &len, /*b64_end*/ nullptr,
                        variant) != 0) {
    return std::nullopt;
  }
  out.resize(len);
  // Strictness: the decoder tolerates some non-zero trailing bits; a canonical text re-encodes
  // to itself.
  if (encode(out) != text) return std::nullopt;
  return out;
}

} // namespace mur::b64url
