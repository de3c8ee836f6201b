#include "capsule/murmur_home.hpp"

#include "messages/vocabulary/failure.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

namespace mur {

std::string murmur_home() {
  if (const char* h = std::getenv("MURMUR_HOME"); h && *h) return h;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.murmur";
  throw Failure("E-INS-003", "neither MURMUR_HOME nor HOME is set",
                "set MURMUR_HOME to the directory mur should keep its stores in");
}

std::string formation_live_dir(const std::string& formation_id) {
  return murmur_home() + "/formations/" + formation_id + "/.live";
}

void make_private_dirs(const std::string& path) {
  if (path.empty()) return;
  std::string partial;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty() || partial == "/") continue;
    struct stat st {};
    if (::stat(partial.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        throw Failure("E-INS-003", partial + " exists and is not a directory",
                      "move it out of the way");
      continue;
    }
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST)
      throw Failure("E-INS-003", "cannot create " + partial + " (" + std::strerror(errno) + ")",
                    "check the permissions of its parent directory");
  }
}

} // namespace mur
