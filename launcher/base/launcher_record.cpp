#include "launcher/base/launcher_record.hpp"

#include "capsule/murmur_home.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/ids.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace mur {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RemoteMember, member, host, session_id, url, pid, capsule, started_at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LauncherRecord, formation_id, pid, process_start, project_dir,
                                                entry, started_at, remote, restarts)

void write_launcher_record(const LauncherRecord& r) {
  const std::string dir = running_dir();
  make_private_dirs(dir);
  ::chmod(dir.c_str(), 0700);
  write_private_file(running_file(r.formation_id), nlohmann::json(r).dump() + "\n");
}

std::optional<LauncherRecord> read_launcher_record(const std::string& formation_id) {
  if (!ids::is_valid(formation_id, ids::formation)) return std::nullopt;
  std::ifstream in(running_file(formation_id));
  if (!in) return std::nullopt;
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    auto r = j.get<LauncherRecord>();
    if (r.formation_id != formation_id || r.pid <= 0) return std::nullopt;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void remove_launcher_record(const std::string& formation_id) {
  if (ids::is_valid(formation_id, ids::formation)) ::unlink(running_file(formation_id).c_str());
}

std::vector<LauncherRecord> list_launcher_records() {
  std::vector<LauncherRecord> out;
  for (const auto& n : running_ids("frm_"))
    if (auto r = read_launcher_record(n)) out.push_back(std::move(*r));
  return out;
}

bool launcher_is_live(const LauncherRecord& r) { return process_is_live(r.pid, r.process_start); }

} // namespace mur
