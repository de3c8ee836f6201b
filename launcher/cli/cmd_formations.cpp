#include "launcher/cli/cmd_formations.hpp"

#include "launcher/base/cli_words.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "launcher/base/launcher_record.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/duration.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/process_start.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sys/stat.h>

namespace mur {
namespace {

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool alive_as(long pid, const std::string& start) {
  if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) return false;
  return process_start_of(static_cast<pid_t>(pid)) == start;
}

// Whether formation `id` runs: its launcher is alive, or one of its members is. Without a
// readable marker we cannot tell, so it counts as running.
bool runs(const std::string& id, const std::vector<RunningRecord>& records) {
  if (auto l = read_launcher_record(id); l && launcher_is_live(*l)) return true;
  for (const auto& r : records)
    if (r.formation_id == id && record_is_live(r)) return true;
  std::ifstream in(formation_dir(id) + "/formation.json");
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("launcher_pid") || !j["launcher_pid"].is_number_integer()) return true;
  return alive_as(j["launcher_pid"].get<long>(), j.value("launcher_start", std::string()));
}

std::vector<std::string> formation_ids() {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(formations_root().c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string id = e->d_name;
      if (ids::is_valid(id, ids::formation) && is_dir(formations_root() + "/" + id)) out.push_back(id);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string age_of(const std::string& id, std::int64_t now_ms) {
  const auto minted = ids::minted_at_ms(id, ids::formation);
  if (!minted) return "?";
  const std::int64_t s = std::max<std::int64_t>(0, now_ms - static_cast<std::int64_t>(*minted)) / 1000;
  if (s >= 86400) return std::to_string(s / 86400) + "d";
  if (s >= 3600) return std::to_string(s / 3600) + "h";
  if (s >= 60) return std::to_string(s / 60) + "m";
  return std::to_string(s) + "s";
}

} // namespace

int cmd_formations_rm(const FormationsRemoval& r) {
  if (r.ids.empty() && !r.ended && r.older_than.empty())
    throw UsageError("E-CLI-003", "mur formations rm: say which formations to remove",
                     "name them (frm_…), or pass --ended (every ended one) or --older-than DUR (e.g. 7d)");
  std::optional<std::chrono::milliseconds> older;
  if (!r.older_than.empty()) {
    auto d = parse_duration(r.older_than);
    if (auto* err = std::get_if<DurationError>(&d))
      throw UsageError("E-CLI-003", "--older-than is not a duration: " + err->why, "give " + std::string(duration_forms));
    older = std::get<std::chrono::milliseconds>(d);
  }
  for (const auto& id : r.ids)
    if (!ids::is_valid(id, ids::formation))
      throw UsageError("E-CLI-003", "'" + id + "' is not a formation id: frm_ and 32 lowercase hex digits",
                       "copy the id from mur ps or ls $MURMUR_HOME/formations");

  const auto records = list_running_records();
  const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<std::string> chosen = r.ids;
  if (r.ended || older)
    for (const auto& id : formation_ids()) {
      if (older) {
        const auto minted = ids::minted_at_ms(id, ids::formation);
        if (!minted || static_cast<std::int64_t>(*minted) > now_ms - older->count()) continue;
      }
      if (std::find(chosen.begin(), chosen.end(), id) == chosen.end()) chosen.push_back(id);
    }

  std::optional<Failure> refusal;
  int removed = 0, kept = 0;
  for (const auto& id : chosen) {
    const bool named = std::find(r.ids.begin(), r.ids.end(), id) != r.ids.end();
    const std::string dir = formation_dir(id);
    if (!is_dir(dir)) {
      if (!refusal) refusal = Failure("E-FRM-001", "no formation directory " + dir, "list them: ls $MURMUR_HOME/formations");
      continue;
    }
    if (runs(id, records)) {
      ++kept;
      std::cout << "kept     " << id << "  (it is running)\n";
      if (named && !refusal)
        refusal = Failure("E-FRM-002", "formation " + id + " is running: its directory was not removed",
                          "stop it first: mur stop " + id);
      continue;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) {
      if (!refusal)
        refusal = Failure("E-FRM-001", "cannot remove " + dir + " (" + ec.message() + ")",
                          "check that $MURMUR_HOME/formations is a directory you own");
      continue;
    }
    ++removed;
    std::cout << "removed  " << id << "  (launched " << age_of(id, now_ms) << " ago)\n";
  }
  if (removed == 0 && kept == 0 && !refusal) std::cout << "no formation directory to remove\n";
  if (refusal) throw *refusal;
  return exit_ok;
}

} // namespace mur
