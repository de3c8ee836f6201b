#include "launcher/traces/trace_list.hpp"

#include "launcher/base/formation_dirs.hpp"
#include "launcher/base/launcher_record.hpp"
#include "launcher/traces/session_traces.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/iso_time.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mur {
namespace {

using json = nlohmann::json;

struct Listed {
  std::string id;
  std::int64_t started_ms = 0;
  std::string what;     // the roster's directory, or capsule@version
  std::int64_t duration_ms = 0;
  std::string outcome;
  json extra;
};

std::string secs(std::int64_t ms) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << ms / 1000.0 << "s";
  return o.str();
}

std::string iso(std::int64_t ms) { return ms > 0 ? iso_utc_ms(ms) : std::string("-"); }

bool session_running(const SessionTrace& t) {
  auto r = read_running_record(t.session_id);
  return r && record_is_live(*r);
}

// Each session directory read once, however many formations' roots name it.
class SessionCache {
public:
  // The sessions of formation `frm` under `roots`.
  std::vector<const SessionTrace*> of(const std::string& frm, const std::vector<std::string>& roots) {
    std::vector<const SessionTrace*> out;
    std::set<std::string> seen;
    for (const auto& root : roots)
      for (const auto* t : under(root))
        if (t->formation_id == frm && seen.insert(t->session_id).second) out.push_back(t);
    return out;
  }

private:
  const std::vector<const SessionTrace*>& under(const std::string& root) {
    auto [it, fresh] = by_root_.try_emplace(root);
    if (fresh) {
      std::error_code ec;
      for (const auto& s : fs::directory_iterator(root, ec)) {
        if (!ids::is_valid(s.path().filename().string(), ids::session)) continue;
        if (auto t = read_session_trace(s.path().string())) {
          kept_.push_back(std::make_unique<SessionTrace>(std::move(*t)));
          it->second.push_back(kept_.back().get());
        }
      }
    }
    return it->second;
  }
  std::map<std::string, std::vector<const SessionTrace*>> by_root_;
  std::vector<std::unique_ptr<SessionTrace>> kept_;
};

std::vector<Listed> formations() {
  std::vector<Listed> out;
  SessionCache cache;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(formations_root(), ec)) {
    const std::string id = d.path().filename().string();
    if (!ids::is_valid(id, ids::formation)) continue;
    std::ifstream marker(d.path().string() + "/formation.json");
    auto m = json::parse(marker, nullptr, false);
    if (!m.is_object()) continue;
    Listed f;
    f.id = id;
    f.what = m.value("project_dir", "");
    auto rec = read_launcher_record(id);
    const bool running = rec && launcher_is_live(*rec);
    std::int64_t last = 0;
    bool ended = false;
    json members = json::array();
    std::string entry_ending;
    for (const SessionTrace* t : cache.of(id, formation_roots(id))) {
      const SessionTrace& s = *t;
      if (f.started_ms == 0 || (s.started_ms > 0 && s.started_ms < f.started_ms)) f.started_ms = s.started_ms;
      last = std::max(last, s.last_ms);
      ended = ended || s.formation_ended;
      members.push_back(s.member);
      if (s.path.rfind(d.path().string() + "/", 0) != 0) entry_ending = ending_of(s, false); // not a peer's
    }
    if (running && rec->started_at > 0) f.started_ms = rec->started_at;
    f.duration_ms = last > f.started_ms ? last - f.started_ms : 0;
    if (running) f.outcome = "running";
    else if (ended) f.outcome = "ended" + (entry_ending.empty() ? std::string() : " (entry: " + entry_ending + ")");
    else if (!entry_ending.empty()) f.outcome = entry_ending;
    else f.outcome = members.empty() ? "no trace" : "ended";
    f.extra = json{{"project_dir", f.what}, {"members", members}, {"running", running}};
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Listed> sessions(const std::string& root) {
  std::vector<Listed> out;
  for (const auto& s : sessions_under(root)) {
    Listed l;
    l.id = s.session_id;
    l.started_ms = s.started_ms;
    l.what = s.capsule + "@" + s.version;
    l.duration_ms = s.last_ms > s.started_ms ? s.last_ms - s.started_ms : 0;
    const bool running = session_running(s);
    l.outcome = ending_of(s, running);
    l.extra = json{{"capsule", s.capsule}, {"version", s.version}, {"formation_id", s.formation_id},
                   {"member", s.member}, {"tasks", s.tasks}, {"running", running}, {"dir", s.path},
                   {"unreadable_lines", s.unreadable}};
    out.push_back(std::move(l));
  }
  return out;
}

void newest_first(std::vector<Listed>& v) {
  std::stable_sort(v.begin(), v.end(), [](const Listed& a, const Listed& b) {
    return a.started_ms != b.started_ms ? a.started_ms > b.started_ms : a.id > b.id;
  });
}

json listed_json(const Listed& l, const char* id_key) {
  json j{{id_key, l.id}, {"started_at", l.started_ms > 0 ? json(iso_utc_ms(l.started_ms)) : json(nullptr)},
         {"started_ms", l.started_ms}, {"duration_ms", l.duration_ms}, {"outcome", l.outcome}};
  j.update(l.extra);
  return j;
}

void print(const std::vector<Listed>& v) {
  if (v.empty()) std::cout << "  (none)\n";
  for (const auto& l : v)
    std::cout << "  " << l.id << "  " << iso(l.started_ms) << "  " << l.what << "  " << secs(l.duration_ms) << "  "
              << l.outcome << (l.extra.value("formation_id", "").empty()
                                 ? std::string()
                                 : "  (formation " + l.extra.value("formation_id", "") + " member " +
                                     l.extra.value("member", "") + ")")
              << "\n";
}

} // namespace

int cmd_trace_list(bool as_json) {
  char buf[4096];
  const std::string here = ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string(".");
  auto fs_ = formations();
  auto ss = sessions(here + "/.murmur");
  newest_first(fs_);
  newest_first(ss);
  if (as_json) {
    json f = json::array(), s = json::array();
    for (const auto& l : fs_) f.push_back(listed_json(l, "formation_id"));
    for (const auto& l : ss) s.push_back(listed_json(l, "session_id"));
    std::cout << json{{"formations", f}, {"sessions", s}}.dump() << "\n";
    return exit_ok;
  }
  std::cout << "formations (" << formations_root() << "):\n";
  print(fs_);
  std::cout << "sessions (" << here << "/.murmur):\n";
  print(ss);
  return exit_ok;
}

} // namespace mur
