// This machine's TLS identity (os/tls_identity.hpp) and what a host agent answers for a capsule
// from its own store (launcher/run/host_agent.hpp).
#include "capsule/capsule_store.hpp"
#include "launcher/run/host_agent.hpp"
#include "launcher/run/host_uploads.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/tls_identity.hpp"
#include "os/x509_mint.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

TEST_CASE("a TLS identity is made once, its key owner-only, and read back after", "[hosts]") {
  mur::test::TempDir t("identity");
  const std::string dir = (t.dir / "launcher").string();
  const mur::TlsIdentity id = mur::ensure_tls_identity(dir, "mur-launcher");
  const std::string pem = mur::certificate_pem(id.certificate);
  CHECK(pem.rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
  CHECK((fs::status(id.key).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  CHECK((fs::status(dir).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  std::ifstream key(id.key);
  std::string first;
  std::getline(key, first);
  CHECK(first == "-----BEGIN PRIVATE KEY-----");
  CHECK(mur::certificate_pem(mur::ensure_tls_identity(dir, "mur-launcher").certificate) == pem); // not made again
  CHECK(mur::certificate_pem(id.key).empty());
  CHECK(mur::certificate_pem((t.dir / "missing.pem").string()).empty());
  // A fresh machine: $MURMUR_HOME itself is made too.
  CHECK(fs::exists(mur::ensure_tls_identity((t.dir / "fresh/home/host").string(), "mur-host").certificate));
  std::ofstream(t.dir / "a-file") << "x";
  try {
    mur::ensure_tls_identity((t.dir / "a-file/home/host").string(), "x");
    FAIL("made an identity in a directory that cannot be made");
  } catch (const mur::Failure& f) {
    CHECK(f.code() == "E-HST-006");
  }
}

TEST_CASE("a host agent answers for a capsule from its own store: installed, missing, or other bytes", "[hosts]") {
  mur::test::TempDir t("hoststore");
  const fs::path src = t.dir / "src", store = t.dir / "store";
  fs::create_directories(src);
  std::ofstream(src / "murmur.yaml") << "name: coder\nversion: 1.0.0\n";
  mur::install_capsule(src.string(), store.string(), mur::StoreScope::global, false);
  const auto listed = mur::list_store(store.string(), mur::StoreScope::global);
  REQUIRE(listed.size() == 1);
  const std::string sha = listed[0].sha256;
  CHECK(mur::check_installed(store.string(), {"coder", "1.0.0", sha}).installed);
  CHECK(mur::check_installed(store.string(), {"coder", "1.0.0", ""}).installed);
  const auto other = mur::check_installed(store.string(), {"coder", "1.0.0", std::string(64, 'a')});
  CHECK_FALSE(other.installed);
  CHECK(other.why.find("installed there with other bytes") != std::string::npos);
  const auto missing = mur::check_installed(store.string(), {"coder", "2.0.0", sha});
  CHECK_FALSE(missing.installed);
  CHECK(missing.why.find("not installed there at this version") != std::string::npos);
  // What is not a capsule's name or version is refused before any path is looked at.
  CHECK(mur::check_installed(store.string(), {"../../etc", "passwd", ""}).why.rfind("'../../etc' ", 0) == 0);
  CHECK(mur::check_installed(store.string(), {"coder", "../1.0.0", ""}).why.rfind("version '../1.0.0': ", 0) == 0);
}

TEST_CASE("a host takes a capsule folder in pieces, in order, beneath its own upload, and installs it whole", "[hosts]") {
  mur::test::TempDir t("uploads");
  const std::string uploads = (t.dir / "uploads").string(), store = (t.dir / "store").string();
  fs::create_directories(uploads + "/upl_stale");
  mur::HostUploads host(uploads, store);
  CHECK_FALSE(fs::exists(uploads + "/upl_stale")); // what an earlier agent left is gone
  auto piece = [](const std::string& rel, std::uint64_t offset, const std::string& bytes) {
    return mur::HostUpload{"upl_1", rel, offset, bytes, false, false, false};
  };
  const std::string yaml = "name: coder\nversion: 1.0.0\n";
  CHECK(host.take(piece("murmur.yaml", 0, yaml)).ok);
  CHECK(host.take(piece("lib/run.sh", 0, "echo ")).ok);
  CHECK(host.take(piece("lib/run.sh", 5, "hi\n")).ok); // the next piece of the same file
  auto done = host.take(mur::HostUpload{"upl_1", "", 0, "", false, true, false});
  INFO(done.code << " " << done.message);
  REQUIRE(done.ok);
  CHECK(done.kind == "installed");
  CHECK(done.name == "coder");
  CHECK(done.version == "1.0.0");
  CHECK(done.sha256.size() == 64);
  std::ifstream installed(store + "/coder/1.0.0/lib/run.sh");
  std::string line;
  std::getline(installed, line);
  CHECK(line == "echo hi");
  CHECK_FALSE(fs::exists(uploads + "/upl_1")); // the upload is gone once installed

  // The same bytes again: already installed.
  CHECK(host.take(mur::HostUpload{"upl_2", "murmur.yaml", 0, yaml, false, false, false}).ok);
  CHECK(host.take(mur::HostUpload{"upl_2", "lib/run.sh", 0, "echo hi\n", false, false, false}).ok);
  CHECK(host.take(mur::HostUpload{"upl_2", "", 0, "", false, true, false}).kind == "already installed");

  // Each way out of its directory, or out of order, is refused and drops the upload.
  for (const std::string bad : {"/etc/passwd", "../escape", "a/../../b", "a//b", "./a", "a/"}) {
    INFO(bad);
    const auto r = host.take(mur::HostUpload{"upl_3", bad, 0, "x", false, false, false});
    CHECK_FALSE(r.ok);
    CHECK(r.code == "E-HST-009");
    CHECK_FALSE(fs::exists(uploads + "/upl_3"));
  }
  CHECK_FALSE(host.take(mur::HostUpload{"../x", "a", 0, "x", false, false, false}).ok);
  CHECK(host.take(mur::HostUpload{"upl_4", "a", 0, "xy", false, false, false}).ok);
  CHECK(host.take(mur::HostUpload{"upl_4", "a", 5, "z", false, false, false}).message.find("out of order") !=
        std::string::npos);
  CHECK(host.take(mur::HostUpload{"upl_5", "a", 0, "x", false, false, false}).ok);
  CHECK(host.take(mur::HostUpload{"upl_5", "b", 0, "x", false, false, false}).ok);
  CHECK(host.take(mur::HostUpload{"upl_5", "a", 0, "x", false, false, false}).message.find("cannot be written") !=
        std::string::npos); // a file is never written twice
  // An install refusal is passed on with its own code.
  CHECK(host.take(mur::HostUpload{"upl_6", "notes.txt", 0, "x", false, false, false}).ok);
  const auto no_manifest = host.take(mur::HostUpload{"upl_6", "", 0, "", false, true, false});
  CHECK_FALSE(no_manifest.ok);
  CHECK(no_manifest.code.rfind("E-", 0) == 0);
  CHECK(no_manifest.code != "E-HST-009");
}

namespace {

X509* read_certificate(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return cert;
}

} // namespace

TEST_CASE("a formation's door authority issues a door certificate for its host's address, and only it verifies it", "[hosts]") {
  const mur::PemPair authority = mur::mint_certificate({"mur formation door authority", 1, nullptr, true, ""});
  const mur::PemPair door = mur::mint_certificate({"mur door coder", 1, &authority, false, "10.0.0.2"});
  const mur::PemPair stranger = mur::mint_certificate({"mur formation door authority", 1, nullptr, true, ""});
  CHECK(door.key.rfind("-----BEGIN PRIVATE KEY-----", 0) == 0);
  X509* ca = read_certificate(authority.certificate);
  X509* leaf = read_certificate(door.certificate);
  X509* other = read_certificate(stranger.certificate);
  REQUIRE(ca);
  REQUIRE(leaf);
  REQUIRE(other);
  CHECK(X509_check_ca(ca) == 1);
  CHECK(X509_check_ca(leaf) == 0);
  CHECK(X509_verify(leaf, X509_get0_pubkey(ca)) == 1);
  CHECK(X509_verify(leaf, X509_get0_pubkey(other)) != 1); // another formation's authority: no
  CHECK(X509_check_ip_asc(leaf, "10.0.0.2", 0) == 1);
  CHECK(X509_check_ip_asc(leaf, "10.0.0.3", 0) != 1);
  // Two authorities of the same name still differ by subject (a trust file must tell them apart).
  CHECK(X509_NAME_cmp(X509_get_subject_name(ca), X509_get_subject_name(other)) != 0);
  const mur::PemPair named = mur::mint_certificate({"mur door x", 1, &authority, false, "gpu1.example"});
  X509* by_name = read_certificate(named.certificate);
  CHECK(X509_check_host(by_name, "gpu1.example", 0, 0, nullptr) == 1);
  for (X509* c : {ca, leaf, other, by_name}) X509_free(c);
}
