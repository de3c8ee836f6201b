#include "member/workdir_fix.hpp"

#include "capsule/murmur_home.hpp"
#include "messages/credentials/formation_channel.hpp"

#include <cstdlib>
#include <sys/stat.h>

namespace mur {
namespace {

bool within(const std::string& dir, const std::string& root) {
  if (root.empty() || dir.compare(0, root.size(), root) != 0) return false;
  return dir.size() == root.size() || dir[root.size()] == '/' || root.back() == '/';
}

// Whether `path` exists (the Fix names only what chmod can reach).
bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

std::string unwritable_dir_fix(const std::string& dir) {
  const char* formation = std::getenv(FORMATION_ID_ENV);
  if (formation == nullptr || *formation == '\0') return "pass --workdir with a directory you can write to";
  const char* project = std::getenv("MURMUR_PROJECT_DIR");
  if (project != nullptr && within(dir, project))
    return std::string("make the project directory writable for your user (chmod u+w ") + project +
           (exists(std::string(project) + "/.murmur") ? std::string(" ") + project + "/.murmur" : std::string()) +
           "), or copy the project to a directory you can write to and run mur run --roster there "
           "(mur run --roster takes no --workdir: the entry member works in the project directory)";
  const std::string home = murmur_home();
  return "make " + home + " writable for your user (chmod -R u+w " + home +
         "), or set MURMUR_HOME to a directory you can write to before mur run --roster";
}

} // namespace mur
