// program_dir.cpp — see program_dir.hpp.
#include "member/program_dir.hpp"
#include "os/path_within.hpp"

#include "messages/vocabulary/failure.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace mur {

namespace {

void make_dir(const fs::path& dir, const fs::path& member) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return;
  throw Failure("E-RUN-007", "cannot create the agent program's directory " + dir.string() + " (" + std::strerror(errno) + ")",
                "check that the member's directory " + member.string() + " is writable");
}

} // namespace

ProgramDir program_dir_for(const std::string& workdir, const std::string& murmur_home) {
  const fs::path w = resolved_path(workdir);
  ProgramDir out;
  // The outermost `.murmur` directory W lies under (not W itself).
  fs::path dot_murmur, walked;
  for (auto it = w.begin(); it != w.end(); ++it) {
    walked /= *it;
    if (*it == ".murmur" && std::next(it) != w.end()) {
      dot_murmur = walked;
      break;
    }
  }
  const bool made_by_mur = (!murmur_home.empty() && path_within(resolved_path(murmur_home), w)) || !dot_murmur.empty();
  if (!made_by_mur) {
    out.dir = w.string();
    out.trace_in_reach = true;
    make_dir(w / ".murmur", w);
    make_dir(w / ".murmur" / "home", w);
    make_dir(w / ".murmur" / "home" / "tmp", w);
    out.home = (w / ".murmur" / "home").string();
    return out;
  }
  const fs::path work = w / "work";
  make_dir(w, w);
  make_dir(work, w);
  make_dir(work / ".home", w);
  make_dir(work / ".home" / "tmp", w);
  out.home = (work / ".home").string();
  out.dir = work.string();
  out.hidden.push_back(w.string());
  if (!dot_murmur.empty()) out.hidden.push_back(dot_murmur.string());
  return out;
}

} // namespace mur
