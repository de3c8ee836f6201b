#include "launcher/base/project_path.hpp"

#include "messages/vocabulary/failure.hpp"

#include <sys/stat.h>

namespace mur {
namespace {

enum class Kind { missing, file, dir, other };

Kind kind_of(const std::string& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return Kind::missing;
  if (S_ISDIR(st.st_mode)) return Kind::dir;
  if (S_ISREG(st.st_mode)) return Kind::file;
  return Kind::other;
}

std::string base_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string dir_of(const std::string& p) {
  const auto slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string trimmed(std::string p) {
  if (p.empty()) p = ".";
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

} // namespace

ProjectPath doctor_path(const std::string& arg) {
  const std::string p = trimmed(arg);
  const Kind k = kind_of(p);
  const std::string fix = "run mur doctor in a formation's project directory or a capsule folder, or pass it: mur doctor DIR";
  if (k == Kind::missing) throw Failure("E-ROS-001", p + " does not exist", fix);
  std::string dir = p;
  if (k != Kind::dir) {
    const std::string base = base_of(p);
    if (k != Kind::file || (base != "roster.yaml" && base != "murmur.yaml"))
      throw Failure("E-ROS-001", p + " is a file, but not a roster.yaml or murmur.yaml", fix);
    dir = dir_of(p);
  }
  ProjectPath out{dir, kind_of(dir + "/roster.yaml") == Kind::file, kind_of(dir + "/murmur.yaml") == Kind::file};
  if (!out.has_roster && !out.has_manifest)
    throw Failure("E-ROS-001", dir + " holds no roster.yaml or murmur.yaml: nothing to check",
                  "create one (mur new NAME scaffolds a project), or " + fix);
  return out;
}

void check_roster_path(const std::string& arg) {
  const std::string p = trimmed(arg);
  const Kind k = kind_of(p);
  if (k == Kind::missing)
    throw Failure("E-ROS-001", p + " does not exist", "give the formation's project directory or its roster.yaml");
  if (k == Kind::dir) {
    if (kind_of(p + "/roster.yaml") != Kind::missing) return; // admission says what is wrong with it
    if (kind_of(p + "/murmur.yaml") == Kind::file)
      throw Failure("E-ROS-001", p + " holds no roster.yaml (it is a capsule folder)",
                    "run the capsule alone: mur run --manifest " + p + "; or create a roster.yaml beside it");
    throw Failure("E-ROS-001", p + " holds no roster.yaml",
                  "give the formation's project directory, or create one: mur new NAME");
  }
  if (base_of(p) != "roster.yaml")
    throw Failure("E-ROS-001", p + " is a file, but not a roster.yaml",
                  "give the formation's project directory or its roster.yaml");
}

} // namespace mur
