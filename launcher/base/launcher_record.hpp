// launcher_record.hpp — `$MURMUR_HOME/running/<frm_id>.json`: how `mur stop/send/ps frm_…` find
// a formation's launcher and its entry member.
//
// Invariant: written whole (temporary file renamed, 0600, in the 0700 running directory) before
// the first member starts, removed when the launcher ends; it holds no token — only the
// launcher's pid and start stamp, the project directory, the entry member's name, the
// members on other hosts that became ready (name, host, session, door URL, pid there) and how
// often each restarted member was restarted. A record is
// trusted only while its pid is alive with the same start stamp.
// Rule: with no launch task the entry serves its door until mur stop, a signal or --deadline
// (docs/spec/formation.md §Launch, §How a formation ends).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mur {

// A member running on another host, as its launcher learnt it when it became ready (its host's
// own records are on that machine): what `mur ps` lists for it.
struct RemoteMember {
  std::string member;
  std::string host;
  std::string session_id;
  std::string url;
  std::int64_t pid = 0;        // on its host
  std::string capsule;         // name@version
  std::int64_t started_at = 0; // unix ms
};

struct LauncherRecord {
  std::string formation_id;
  std::int64_t pid = 0;
  std::string process_start;
  std::string project_dir;
  std::string entry;         // the entry member's name
  std::int64_t started_at = 0; // unix ms
  std::vector<RemoteMember> remote; // members on other hosts that became ready (rewritten as each does)
  std::map<std::string, int> restarts; // member → times it was restarted (roster `restart:`), rewritten at each
};

void write_launcher_record(const LauncherRecord& r);
std::optional<LauncherRecord> read_launcher_record(const std::string& formation_id);
void remove_launcher_record(const std::string& formation_id);
std::vector<LauncherRecord> list_launcher_records(); // sorted by formation id (launch order)
bool launcher_is_live(const LauncherRecord& r);

} // namespace mur
