// memory_file.cpp — see memory_file.hpp.
#include "os/memory_file.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace mur {

UniqueFd memory_file(const char* name, const std::string& text) {
  UniqueFd fd(::memfd_create(name, MFD_CLOEXEC));
  if (!fd.valid()) return fd;
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return UniqueFd();
    done += std::size_t(n);
  }
  if (::lseek(fd.get(), 0, SEEK_SET) != 0) return UniqueFd();
  return fd;
}

std::string read_to_end(int fd) {
  std::string out;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, std::size_t(n));
  }
  return out;
}

} // namespace mur
