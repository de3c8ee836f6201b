#include "launcher/base/formation_dirs.hpp"

#include "capsule/murmur_home.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/process_start.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {

std::string formations_root() { return murmur_home() + "/formations"; }
std::string formation_dir(const std::string& formation_id) { return formations_root() + "/" + formation_id; }

namespace {

Failure dir_failure(const std::string& path, int err) {
  return Failure("E-RUN-045", "the formation directory " + path + " could not be made (" + std::strerror(err) + ")",
                 "check that $MURMUR_HOME/formations is a directory you own");
}

bool pid_alive_as(long pid, const std::string& start) {
  if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) return false;
  return start.empty() || process_start_of(static_cast<pid_t>(pid)) == start;
}

} // namespace

void make_formation_dir(const std::string& formation_id, const std::string& project_dir, long launcher_pid,
                        const std::string& launcher_start) {
  const std::string root = formations_root();
  make_private_dirs(root);
  ::chmod(root.c_str(), 0700);
  const std::string dir = formation_dir(formation_id);
  if (::mkdir(dir.c_str(), 0700) != 0) throw dir_failure(dir, errno);
  const std::string text = nlohmann::json{{"project_dir", project_dir},
                                          {"launcher_pid", launcher_pid},
                                          {"launcher_start", launcher_start}}.dump() + "\n";
  const std::string tmp = dir + "/.formation.json.tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw dir_failure(dir, errno);
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), (dir + "/formation.json").c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    ::rmdir(dir.c_str());
    throw dir_failure(dir, err ? err : EIO);
  }
}

PeerDir make_peer_dir(const std::string& formation_id, const std::string& member) {
  PeerDir d;
  d.path = formation_dir(formation_id) + "/" + member;
  if (::mkdir(d.path.c_str(), 0700) != 0)
    d.refusal = "its directory " + d.path + " could not be made (" + std::strerror(errno) + ")";
  return d;
}

PeerDir reuse_peer_dir(const std::string& formation_id, const std::string& member) {
  PeerDir d;
  d.path = formation_dir(formation_id) + "/" + member;
  struct stat st {};
  if (::lstat(d.path.c_str(), &st) != 0)
    d.refusal = "its directory " + d.path + " is gone (" + std::strerror(errno) + ")";
  else if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 07777) != 0700)
    d.refusal = "its directory " + d.path + " is no longer a private directory of ours (mode 0700)";
  return d;
}

std::vector<std::string> apply_retention(const Retention& policy, const std::string& current,
                                         const std::string& project_dir) {
  std::vector<std::string> removed;
  if (!policy.max_sessions && !policy.max_age) return removed;
  struct Candidate {
    std::string id;
    long pid = 0;
    std::string start;
  };
  std::vector<Candidate> candidates;
  const std::string root = formations_root();
  if (DIR* d = ::opendir(root.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string id = e->d_name;
      if (!ids::is_valid(id, ids::formation)) continue;
      struct stat st {};
      if (::lstat((root + "/" + id).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
      std::ifstream in(root + "/" + id + "/formation.json");
      auto j = nlohmann::json::parse(in, nullptr, false);
      if (!j.is_object() || !j.contains("project_dir") || !j["project_dir"].is_string()) continue;
      if (j["project_dir"].get<std::string>() != project_dir) continue;
      Candidate c{id, j.value("launcher_pid", 0L), j.value("launcher_start", std::string())};
      candidates.push_back(c);
    }
    ::closedir(d);
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.id > b.id; });

  bool records_readable = ::access(running_dir().c_str(), R_OK | X_OK) == 0 || errno == ENOENT;
  const auto records = list_running_records();
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  for (std::size_t rank = 0; rank < candidates.size(); ++rank) {
    const Candidate& c = candidates[rank];
    if (c.id >= current) continue;
    const auto minted = ids::minted_at_ms(c.id, ids::formation).value_or(0);
    const bool over_age = policy.max_age && static_cast<long long>(minted) < now_ms - policy.max_age->count();
    const bool over_count = policy.max_sessions && static_cast<int>(rank) >= *policy.max_sessions;
    if (!over_age && !over_count) continue;
    bool live = !records_readable || pid_alive_as(c.pid, c.start);
    for (const auto& r : records)
      if (r.formation_id == c.id && record_is_live(r)) live = true;
    if (live) continue;
    std::error_code ec;
    std::filesystem::remove_all(root + "/" + c.id, ec);
    if (!ec) removed.push_back("retention: removed formation " + c.id + (over_age ? " (max_age)" : " (max_sessions)"));
  }
  return removed;
}

} // namespace mur
