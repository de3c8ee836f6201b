// x509_mint.cpp — see x509_mint.hpp.
#include "os/x509_mint.hpp"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>

#include <memory>
#include <stdexcept>

namespace mur {
namespace {

template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, std::integral_constant<decltype(Free), Free>>;

std::runtime_error refused(const std::string& what) { return std::runtime_error("a certificate could not be made: " + what); }

Owned<EVP_PKEY, EVP_PKEY_free> fresh_key() {
  Owned<EVP_PKEY_CTX, EVP_PKEY_CTX_free> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx.get(), NID_X9_62_prime256v1) != 1 || EVP_PKEY_keygen(ctx.get(), &raw) != 1)
    throw refused("key generation failed");
  return Owned<EVP_PKEY, EVP_PKEY_free>(raw);
}

std::string pem_of_bio(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Owned<X509_EXTENSION, X509_EXTENSION_free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) throw refused("extension " + value + " refused");
}

bool ip_literal(const std::string& s) {
  unsigned char buf[16];
  return ::inet_pton(AF_INET, s.c_str(), buf) == 1 || ::inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

} // namespace

PemPair mint_certificate(const MintRequest& rq) {
  auto key = fresh_key();
  Owned<X509, X509_free> cert(X509_new());
  if (!cert) throw refused("X509_new failed");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) throw refused("no random bytes");
  serial[0] &= 0x7f;
  Owned<BIGNUM, BN_free> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()));
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), rq.days * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  static const char hex[] = "0123456789abcdef";
  std::string unique = rq.common_name + " ";
  for (int i = 0; i < 8; ++i) unique += {hex[serial[i] >> 4], hex[serial[i] & 15]};
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(unique.c_str()), -1, -1, 0);

  Owned<X509, X509_free> issuer_cert(nullptr);
  Owned<EVP_PKEY, EVP_PKEY_free> issuer_key(nullptr);
  if (rq.issuer) {
    Owned<BIO, BIO_free_all> cb(BIO_new_mem_buf(rq.issuer->certificate.data(), static_cast<int>(rq.issuer->certificate.size())));
    Owned<BIO, BIO_free_all> kb(BIO_new_mem_buf(rq.issuer->key.data(), static_cast<int>(rq.issuer->key.size())));
    issuer_cert.reset(PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr));
    issuer_key.reset(PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr));
    if (!issuer_cert || !issuer_key) throw refused("the issuer's certificate or key does not read");
    X509_set_issuer_name(cert.get(), X509_get_subject_name(issuer_cert.get()));
  } else {
    X509_set_issuer_name(cert.get(), name);
  }
  X509* signer_cert = issuer_cert ? issuer_cert.get() : cert.get();
  if (rq.authority) {
    add_extension(cert.get(), signer_cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    add_extension(cert.get(), signer_cert, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else if (!rq.subject_name.empty()) {
    add_extension(cert.get(), signer_cert, NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), signer_cert, NID_ext_key_usage, "serverAuth");
    add_extension(cert.get(), signer_cert, NID_subject_alt_name,
                  (ip_literal(rq.subject_name) ? "IP:" : "DNS:") + rq.subject_name);
  }
  if (X509_sign(cert.get(), issuer_key ? issuer_key.get() : key.get(), EVP_sha256()) <= 0) throw refused("signing failed");

  PemPair out;
  Owned<BIO, BIO_free_all> cbio(BIO_new(BIO_s_mem())), kbio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(cbio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(kbio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
    throw refused("PEM writing failed");
  out.certificate = pem_of_bio(cbio.get());
  out.key = pem_of_bio(kbio.get());
  return out;
}

} // namespace mur
