#include "launcher/base/launcher_record.hpp"

#include "capsule/murmur_home.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/process_start.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {

namespace {
std::string path_of(const std::string& id) { return running_dir() + "/" + id + ".json"; }
} // namespace

void write_launcher_record(const LauncherRecord& r) {
  const std::string dir = running_dir();
  make_private_dirs(dir);
  ::chmod(dir.c_str(), 0700);
  const std::string text = nlohmann::json{{"formation_id", r.formation_id}, {"pid", r.pid},
                                          {"process_start", r.process_start}, {"project_dir", r.project_dir},
                                          {"entry", r.entry}, {"started_at", r.started_at}}.dump() + "\n";
  write_private_file(path_of(r.formation_id), text);
}

std::optional<LauncherRecord> read_launcher_record(const std::string& formation_id) {
  if (!ids::is_valid(formation_id, ids::formation)) return std::nullopt;
  std::ifstream in(path_of(formation_id));
  if (!in) return std::nullopt;
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    LauncherRecord r;
    r.formation_id = j.at("formation_id").get<std::string>();
    r.pid = j.at("pid").get<std::int64_t>();
    r.process_start = j.value("process_start", "");
    r.project_dir = j.value("project_dir", "");
    r.entry = j.value("entry", "");
    r.started_at = j.value("started_at", std::int64_t{0});
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void remove_launcher_record(const std::string& formation_id) {
  if (ids::is_valid(formation_id, ids::formation)) ::unlink(path_of(formation_id).c_str());
}

std::vector<LauncherRecord> list_launcher_records() {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(running_dir().c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0 && n.rfind("frm_", 0) == 0)
        names.push_back(n.substr(0, n.size() - 5));
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::vector<LauncherRecord> out;
  for (const auto& n : names)
    if (auto r = read_launcher_record(n)) out.push_back(std::move(*r));
  return out;
}

bool launcher_is_live(const LauncherRecord& r) {
  if (r.pid <= 0 || (::kill(static_cast<pid_t>(r.pid), 0) != 0 && errno != EPERM)) return false;
  return process_start_of(static_cast<pid_t>(r.pid)) == r.process_start;
}

} // namespace mur
