// This machine's TLS identity (os/tls_identity.hpp) and what a host agent answers for a capsule
// from its own store (launcher/run/host_agent.hpp).
#include "capsule/capsule_store.hpp"
#include "launcher/run/host_agent.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/tls_identity.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

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
  try {
    mur::ensure_tls_identity((t.dir / "no/such/dir").string(), "x");
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
}
