// x509_mint.hpp — keys and certificates made in memory: a machine's own identity
// (os/tls_identity.hpp) and a formation's door authority with the certificates it issues to
// doors on other hosts (docs/hosts.md §Doors across hosts).
//
// Invariant: each call makes a fresh ECDSA P-256 key and an X.509 v3 certificate for it, serial
// 16 random bytes, SHA-256 signed — by its own key (no issuer) or by the issuer's; the common
// name is made unique by the serial (a trust file of several is searched by subject, and two
// alike would hide each other). An authority is marked CA (basicConstraints critical, keyCertSign);
// a leaf names `subject_name` in subjectAltName (an IP literal as IP, anything else as DNS) and
// may only serve TLS (serverAuth). Nothing is written anywhere: the PEM text is returned.
// Throws std::runtime_error when OpenSSL refuses.
#pragma once

#include <string>

namespace mur {

struct PemPair {
  std::string certificate; // PEM, public
  std::string key;         // PEM (PKCS#8), secret
};

struct MintRequest {
  std::string common_name;
  long days = 1;
  const PemPair* issuer = nullptr; // null: self-signed
  bool authority = false;          // may issue certificates
  std::string subject_name;        // "" or the leaf's IP literal or DNS name
};

PemPair mint_certificate(const MintRequest& request);

} // namespace mur
