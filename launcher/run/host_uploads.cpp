// host_uploads.cpp — see host_uploads.hpp.
#include "launcher/run/host_uploads.hpp"

#include "capsule/capsule_store.hpp"
#include "messages/vocabulary/failure.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace mur {
namespace {

constexpr std::size_t most_uploads = 4;

bool plain_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

// A relative path of plain components.
bool plain_rel(const std::string& rel) {
  if (rel.empty() || rel.size() > 4096 || rel.front() == '/' || rel.find('\0') != std::string::npos) return false;
  std::istringstream parts(rel);
  for (std::string part; std::getline(parts, part, '/');)
    if (part.empty() || part == "." || part == "..") return false;
  return rel.back() != '/';
}

} // namespace

HostUploads::HostUploads(std::string uploads_dir, std::string store)
    : uploads_dir_(std::move(uploads_dir)), store_(std::move(store)) {
  std::error_code ec;
  fs::remove_all(uploads_dir_, ec);
  fs::create_directories(uploads_dir_, ec);
  fs::permissions(uploads_dir_, fs::perms::owner_all, ec);
}

HostInstalled HostUploads::refuse(const std::string& id, const std::string& why) {
  const auto it = uploads_.find(id);
  if (it != uploads_.end()) {
    std::error_code ec;
    fs::remove_all(it->second.dir, ec);
    uploads_.erase(it);
  }
  HostInstalled r;
  r.code = "E-HST-009";
  r.message = "the host refused the install: " + why;
  r.fix = "install from the capsule folder itself with this mur (mur install --host NAME DIR), one install at a time";
  return r;
}

HostInstalled HostUploads::take(const HostUpload& piece) {
  if (!plain_id(piece.upload_id)) return refuse("", "an upload id must be 1–64 letters, digits, - or _");
  auto it = uploads_.find(piece.upload_id);
  if (it == uploads_.end()) {
    if (uploads_.size() >= most_uploads) return refuse("", "more than four installs at once");
    Upload u;
    u.dir = uploads_dir_ + "/" + piece.upload_id;
    std::error_code ec;
    fs::remove_all(u.dir, ec);
    if (!fs::create_directory(u.dir, ec)) return refuse("", "cannot make " + u.dir + " (" + ec.message() + ")");
    it = uploads_.emplace(piece.upload_id, u).first;
  }
  Upload& u = it->second;
  if (piece.last) {
    HostInstalled r;
    try {
      const InstallOutcome out = install_capsule(u.dir, store_, StoreScope::global, piece.force);
      r.ok = true;
      r.kind = out.kind == InstallOutcome::Kind::unchanged ? "already installed"
               : out.kind == InstallOutcome::Kind::replaced ? "replaced"
                                                            : "installed";
      r.name = out.capsule.name;
      r.version = out.capsule.version;
      r.sha256 = out.capsule.sha256;
    } catch (const Failure& f) {
      r.code = f.code();
      r.message = f.message();
      r.fix = f.fix();
    }
    std::error_code ec;
    fs::remove_all(u.dir, ec);
    uploads_.erase(it);
    return r;
  }
  if (!plain_rel(piece.rel)) return refuse(piece.upload_id, "'" + piece.rel + "' is not a plain relative path");
  const bool next_piece = piece.rel == u.file && piece.offset > 0;
  if (!next_piece && piece.offset != 0) return refuse(piece.upload_id, piece.rel + ": a piece came out of order");
  if (next_piece && piece.offset != u.file_size) return refuse(piece.upload_id, piece.rel + ": a piece came out of order");
  if (piece.bytes.size() > host_upload_piece) return refuse(piece.upload_id, "a piece is larger than 1 MiB");
  u.bytes += piece.bytes.size();
  if (u.bytes > max_capsule_total_bytes) return refuse(piece.upload_id, "the folder's files add up to more than 1 GiB");
  const std::string path = u.dir + "/" + piece.rel;
  int fd = -1;
  if (!next_piece) {
    if (++u.files > max_capsule_files) return refuse(piece.upload_id, "the folder holds more than 100000 files");
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, piece.executable ? 0755 : 0644);
    u.file = piece.rel;
    u.file_size = 0;
  } else {
    fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) return refuse(piece.upload_id, piece.rel + " cannot be written (" + std::strerror(errno) + ")");
  std::size_t done = 0;
  while (done < piece.bytes.size()) {
    const ssize_t n = ::write(fd, piece.bytes.data() + done, piece.bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::close(fd);
  if (done != piece.bytes.size()) return refuse(piece.upload_id, piece.rel + " cannot be written");
  u.file_size += done;
  HostInstalled r;
  r.ok = true;
  return r;
}

} // namespace mur
