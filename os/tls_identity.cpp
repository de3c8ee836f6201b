// tls_identity.cpp — see tls_identity.hpp.
#include "os/tls_identity.hpp"

#include "messages/vocabulary/failure.hpp"

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

namespace mur {
namespace {

Failure cannot(const std::string& what) {
  return Failure("E-HST-006", "this machine's TLS identity could not be made: " + what,
                 "check that $MURMUR_HOME is a directory you own and can write to");
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Writes `pem` (from `write`) to `path` with `mode`, whole: a temporary name, then a rename.
template <class Write>
void write_pem(const std::string& path, mode_t mode, Write write) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw cannot("cannot create " + tmp + " (" + std::strerror(errno) + ")");
  FILE* f = ::fdopen(fd, "w");
  if (f == nullptr) {
    ::close(fd);
    throw cannot("cannot open " + tmp);
  }
  const bool ok = write(f) == 1;
  if (std::fclose(f) != 0 || !ok) throw cannot("cannot write " + tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw cannot("cannot place " + path + " (" + std::strerror(errno) + ")");
}

void make_identity(const TlsIdentity& id, const std::string& common_name) {
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> kctx(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nullptr),
                                                                    &EVP_PKEY_CTX_free);
  EVP_PKEY* raw = nullptr;
  if (!kctx || EVP_PKEY_keygen_init(kctx.get()) != 1 ||
      EVP_PKEY_CTX_set_ec_paramgen_curve_nid(kctx.get(), NID_X9_62_prime256v1) != 1 ||
      EVP_PKEY_keygen(kctx.get(), &raw) != 1)
    throw cannot("key generation failed");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw, &EVP_PKEY_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), &X509_free);
  if (!cert) throw cannot("X509_new failed");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  std::ifstream("/dev/urandom", std::ios::binary).read(reinterpret_cast<char*>(serial), sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  // The name is made unique by the serial: a file that trusts several certificates (a host's
  // --trust, a launcher's hosts) is searched by subject, and two alike would hide each other.
  static const char hex[] = "0123456789abcdef";
  std::string unique = common_name + " ";
  for (int i = 0; i < 8; ++i) unique += {hex[serial[i] >> 4], hex[serial[i] & 15]};
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(unique.c_str()), -1,
                             -1, 0);
  X509_set_issuer_name(cert.get(), name);
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) throw cannot("signing the certificate failed");
  write_pem(id.key, 0600, [&](FILE* f) {
    return PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  write_pem(id.certificate, 0644, [&](FILE* f) { return PEM_write_X509(f, cert.get()); });
}

} // namespace

TlsIdentity ensure_tls_identity(const std::string& dir, const std::string& common_name) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw cannot("cannot create " + dir + " (" + std::strerror(errno) + ")");
  TlsIdentity id{dir + "/identity.crt", dir + "/identity.key"};
  if (exists(id.certificate) && exists(id.key)) return id;
  make_identity(id, common_name);
  return id;
}

std::string certificate_pem(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return text.find("-----BEGIN CERTIFICATE-----") == std::string::npos ? std::string() : text;
}

} // namespace mur
