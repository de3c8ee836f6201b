// private_process.cpp — see private_process.hpp.
#include "os/private_process.hpp"

#include <sys/prctl.h>

#include <cstring>

extern char** environ;

namespace mur {
namespace {

// The environment copied into memory of its own, then each entry of the block the kernel shows
// zeroed — but the runtime's own MURMUR_* entries (ids, paths, descriptor numbers; never a
// token), which stay readable so an operator's tools can tell a formation's processes.
void wipe_environment_block() {
  if (environ == nullptr) return;
  std::size_t count = 0;
  while (environ[count] != nullptr) ++count;
  char** copy = new char*[count + 1]; // lives as long as the process: it is its environment now
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = std::strlen(environ[i]) + 1;
    copy[i] = new char[n];
    std::memcpy(copy[i], environ[i], n);
  }
  copy[count] = nullptr;
  char** old = environ;
  environ = copy;
  for (std::size_t i = 0; i < count; ++i)
    if (std::strncmp(old[i], "MURMUR_", 7) != 0) std::memset(old[i], 0, std::strlen(old[i]));
}

} // namespace

void make_process_private() {
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  wipe_environment_block();
}

} // namespace mur
