// tls_identity.hpp — the key and self-signed certificate a machine's mur speaks TLS with to
// another machine's (a launcher to a host agent, and back): made once, kept in a directory of
// its own.
//
// Invariant: ensure_tls_identity returns a certificate and a private key that belong together:
// read as they are when both files exist, else made anew (ECDSA P-256, valid 10 years, common
// name as given and made unique, os/x509_mint.hpp) and written whole — the key 0600 in a 0700 directory, never printed. What the
// other side trusts is the certificate alone (pinned: no authority, no name checked).
// Rule: each side names the other's certificate (docs/hosts.md §Keys).
#pragma once

#include <string>

namespace mur {

struct TlsIdentity {
  std::string certificate; // PEM file path
  std::string key;         // PEM file path (0600)
};

// Throws Failure E-HST-006 when the directory or the files cannot be made or read.
TlsIdentity ensure_tls_identity(const std::string& dir, const std::string& common_name);

// The PEM text of a certificate file ("" when it holds none).
std::string certificate_pem(const std::string& path);

} // namespace mur
