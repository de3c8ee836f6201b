#include "member/trace_blob_file.hpp"

#include "messages/vocabulary/sha256.hpp"
#include "os/unique_fd.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {
namespace {

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::atomic<bool> warned{false};

std::string failed(const std::string& path, int err) {
  if (!warned.exchange(true))
    std::cerr << "warning W-TRC-004: the transcript blob " << path << " could not be written ("
              << std::strerror(err) << "); its task_end names a blob that is missing. Fix: free space on the file "
              << "system that holds it (df -h) and check that the session directory is writable\n"
              << std::flush;
  return "";
}

} // namespace

std::string write_trace_blob(const std::string& session_dir, const std::string& bytes) {
  const std::string name = sha256_hex(bytes);
  const std::string dir = session_dir + "/blobs";
  const std::string path = dir + "/" + name;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return failed(path, errno);
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return name; // the same bytes, already kept
  const std::string tmp = dir + "/." + name + ".tmp";
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return failed(path, errno);
  if (!write_all(fd.get(), bytes)) {
    const int err = errno ? errno : ENOSPC;
    ::unlink(tmp.c_str());
    return failed(path, err);
  }
  fd = UniqueFd();
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return failed(path, err);
  }
  return name;
}

} // namespace mur
