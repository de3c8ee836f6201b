// tls_identity.cpp — see tls_identity.hpp.
#include "os/tls_identity.hpp"

#include "messages/vocabulary/failure.hpp"
#include "os/x509_mint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
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

// Writes `pem` to `path` with `mode`, whole: a temporary name, then a rename.
void write_pem(const std::string& path, mode_t mode, const std::string& pem) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw cannot("cannot create " + tmp + " (" + std::strerror(errno) + ")");
  std::size_t done = 0;
  while (done < pem.size()) {
    const ssize_t n = ::write(fd, pem.data() + done, pem.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw cannot("cannot write " + tmp);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw cannot("cannot write " + tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw cannot("cannot place " + path + " (" + std::strerror(errno) + ")");
}

void make_identity(const TlsIdentity& id, const std::string& common_name) {
  PemPair made;
  try {
    made = mint_certificate(MintRequest{common_name, 10L * 365, nullptr, false, ""});
  } catch (const std::runtime_error& e) {
    throw cannot(e.what());
  }
  write_pem(id.key, 0600, made.key);
  write_pem(id.certificate, 0644, made.certificate);
}

} // namespace

TlsIdentity ensure_tls_identity(const std::string& dir, const std::string& common_name) {
  std::error_code ec; // $MURMUR_HOME itself may not exist yet on a fresh machine
  std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
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
